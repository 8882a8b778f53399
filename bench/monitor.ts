import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { getRequestListener } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Page } from 'playwright-core';
import type { BrowserCall, VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import { createVoiceProxy, type ProxyUser } from '../server-proxy/setup/proxy.js';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import { createSimulatorControl } from '../simulator/http/control-client.js';
import { openBenchPage, type BenchPage } from './browser.js';
import { STEP_TIMEOUT_MS } from './desk-app.js';
import { startBenchSimulator } from './simulator-process.js';
import { ms, spread, staggerMs, type Row, type Spread } from './stats.js';

/**
 * A supervisor listening in (docs/desk.md and docs/simulator.md, "Supervisors and
 * recordings"): from `voice.monitor(callId)` on the supervisor's page to the first audio of the call at that
 * page. The simulator in its own process; in this one, on loopback, an app of the bench's own: the voice proxy
 * (`createVoiceProxy`, with an empty support desk so the queue-call reads a monitor leg uses are there) behind an
 * `authenticate` that makes one user the supervisor of another (`supervisor: {agents: [...]}`), a stand-in login
 * at `/auth`, and the built library at `/lib/`. Two Chromium pages with the script-tag library (the bench page), each
 * its own browser and login: the agent's, in a call to +12025550100 (a tone, then the agent's fake microphone
 * echoed) for the whole part, and the supervisor's, connected, which monitors that call `runs` times, leaving
 * each leg with `hangup()` and `busy` false before the next, after a different fraction of a second each time so
 * the page's 1 s reads meet the round at every phase.
 *
 * @remarks
 * Every stamp of a round is the supervisor page's own `performance.now()`, from the moment `monitor()` is
 * called: the monitor request's `201` (the resource timing's `responseEnd`), the leg's INVITE reaching the page
 * (the SIP WebSocket's message), the page's `200 OK` to it (the WebSocket's send), the `onStatus` that shows the
 * leg `connected`, and the first RTP: `getStats()` of the leg's peer connection, every 5 ms from its creation,
 * until its inbound-rtp `packetsReceived` is above 0. That last is what the figure ends at, since it is the first
 * moment the call's sound is in the page; `status().audio === 'playing'` is the audio element's `play()`
 * resolving, which a remote stream allows before a packet has come (it plays silence until then), and the
 * remote track's `unmute` is noted beside them. The simulator's own stamps of the leg (INVITE sent, media up)
 * come from its control API, compared on this machine's one clock through the page's `Date.now()`.
 */

/** What the bench page puts on `window`, and what this part adds. */
interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
  listen(listener: (status: VoiceBrowserStatus) => void): void;
  /** The supervisor page's stamps of the current round (see {@link watchInPage}). */
  __monitor: MonitorMarks;
}

/** A peer connection the page made, when, and when its remote track arrived and first unmuted. */
interface PeerMark {
  pc: RTCPeerConnection;
  at: number;
  trackAt: number;
  unmuteAt: number;
}

/** The stamps the supervisor page keeps, emptied at each round's start. */
interface MonitorMarks {
  /** INVITEs with `X-Monitored-Call-Id` that reached the page: when, and their SIP Call-ID. */
  invites: Array<{ at: number; sipCallId: string }>;
  /** `200 OK`s the page sent to an INVITE: when, and their SIP Call-ID. */
  answers: Array<{ at: number; sipCallId: string }>;
  peers: PeerMark[];
  /** First status of the round showing a monitor leg `connected`, and `audio` `playing` with one. */
  connectedAt: number;
  playingAt: number;
}

/** One round's figures: ms from `monitor()` being called, in the supervisor page. */
export interface MonitorRound {
  legId: string;
  answer201: number;
  monitorResolved: number;
  invite: number;
  answered: number;
  connected: number;
  firstRtp: number;
  playing: number;
  trackUnmuted: number;
  /** The simulator's stamps against the page's `Date.now()` at `monitor()`: the INVITE sent, the leg's media up. */
  serviceInviteSent: number;
  serviceMediaUp: number;
  /** Audio packets the simulator counted from the page on the leg (a listen-only answer sends none). */
  packetsFromPage: number | null;
  /** From `hangup()` to `busy` false. */
  hangupToIdle: number;
}

/** The part's figures, as written to bench/results/. */
export interface MonitorFigures {
  monitorToFirstRtp: Spread & { slowest: number };
  answer201: Spread;
  invite: Spread;
  answered: Spread;
  connected: Spread;
  playing: Spread;
  trackUnmuted: Spread;
  serviceInviteSent: Spread;
  serviceMediaUp: Spread;
  hangupToIdle: Spread;
  rounds: MonitorRound[];
}

/** The two users of the bench's login; the agent's id as `authenticate` returns it is what the supervisor names. */
const AGENT = 'bench-monitor-agent';
const SUPERVISOR = 'bench-monitor-supervisor';
const USER_COOKIE = 'bench_user';
/** The test number the agent calls: it answers at once with a tone, then echoes the agent's microphone. */
const TONE_NUMBER = '+12025550100';

/** The bench's `authenticate`: the user named by the login cookie, the supervisor of the agent. */
function authenticate(request: Request): ProxyUser | null {
  const name = /(?:^|;\s*)bench_user=([A-Za-z0-9._-]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  if (!name) return null;
  return name === SUPERVISOR ? { id: name, name, supervisor: { agents: [AGENT] } } : { id: name, name };
}

/**
 * The bench's app on a free loopback port: the proxy at `/voice`, a stand-in login at `/auth` (the username in a
 * cookie, as openBenchPage posts it; loopback only), the built library at `/lib/`.
 */
async function startSupervisorApp(simUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const proxy = createVoiceProxy({
    baseUrl: `${simUrl}/api`,
    apiKey: DEFAULT_SIM_API_KEY,
    authenticate,
    // The per-user limits guard the key's quota; they are not what is measured here.
    rateLimit: false,
    logLevel: 'warn',
    queues: { notifySecret: randomBytes(24).toString('base64url'), queuesFor: () => [] },
  });
  const app = new Hono();
  app.all('/voice/*', (c) => proxy(c.req.raw));
  app.post('/auth/login', async (c) => {
    const { username } = (await c.req.json()) as { username: string };
    setCookie(c, USER_COOKIE, username, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.json({ user: { name: username } });
  });
  app.get('/auth/me', (c) => c.json({ user: getCookie(c, USER_COOKIE) ?? null }));
  app.use('/lib/*', serveStatic({ root: fileURLToPath(new URL('../lib/dist', import.meta.url)), rewriteRequestPath: (path) => path.replace(/^\/lib/, '') }));
  const serve: RequestListener = getRequestListener(app.fetch);
  const server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await proxy.budget.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The agent connects and calls the tone number; resolves with the call's id once `connected`. */
async function agentInCall(page: Page): Promise<string> {
  return page.evaluate(
    async ({ to, timeoutMs }) => {
      const { voice, when } = window as unknown as PageGlobals;
      await voice.connect();
      const connected = when((s) => s.call?.state === 'connected', timeoutMs, 'the agent connected');
      const call = await voice.startCall({ from: '+12025550199', to }, { idempotencyKey: crypto.randomUUID() });
      await connected;
      return call.id;
    },
    { to: TONE_NUMBER, timeoutMs: STEP_TIMEOUT_MS },
  );
}

/**
 * In the supervisor's page, before it connects: stamps the monitor INVITEs its SIP WebSocket receives and the
 * `200 OK`s it sends, each peer connection it makes (its remote track's arrival and first `unmute`), and the
 * first statuses of a round that show a monitor leg connected and playing. One function because Playwright
 * sends it to the page as one script.
 */
function watchInPage(): void {
  const w = window as unknown as PageGlobals;
  const marks: MonitorMarks = { invites: [], answers: [], peers: [], connectedAt: 0, playingAt: 0 };
  w.__monitor = marks;
  const sipCallId = (text: string) => /\r\n(?:Call-ID|i)\s*:\s*(\S+)/i.exec(text)?.[1] ?? '';
  const NativeWs = window.WebSocket;
  window.WebSocket = class extends NativeWs {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', ({ data }) => {
        if (typeof data !== 'string' || !data.startsWith('INVITE ') || !/\r\nX-Monitored-Call-Id\s*:/i.test(data)) return;
        marks.invites.push({ at: performance.now(), sipCallId: sipCallId(data) });
      });
    }
  };
  const send = NativeWs.prototype.send;
  NativeWs.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
    if (typeof data === 'string' && data.startsWith('SIP/2.0 200') && /\r\nCSeq\s*:\s*\d+\s+INVITE/i.test(data)) marks.answers.push({ at: performance.now(), sipCallId: sipCallId(data) });
    return send.call(this, data);
  };
  const NativePc = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePc {
    constructor(config?: RTCConfiguration) {
      super(config);
      const mark: PeerMark = { pc: this, at: performance.now(), trackAt: 0, unmuteAt: 0 };
      marks.peers.push(mark);
      this.addEventListener('track', ({ track }) => {
        mark.trackAt ||= performance.now();
        if (!track.muted) mark.unmuteAt ||= performance.now();
        track.addEventListener('unmute', () => (mark.unmuteAt ||= performance.now()), { once: true });
      });
    }
  };
  w.listen((status) => {
    if (status.call?.kind !== 'monitor') return;
    if (status.call.state === 'connected') marks.connectedAt ||= performance.now();
    if (status.audio === 'playing') marks.playingAt ||= performance.now();
  });
}

/** One round in the supervisor's page: `monitor(callId)`, every stamp to the first RTP, then `hangup()` to `busy` false. */
async function monitorOnce(page: Page, callId: string): Promise<Omit<MonitorRound, 'serviceInviteSent' | 'serviceMediaUp' | 'packetsFromPage'> & { startedEpoch: number }> {
  return page.evaluate(
    async ({ callId, timeoutMs }) => {
      const { voice, when, __monitor: marks } = window as unknown as PageGlobals;
      Object.assign(marks, { invites: [], answers: [], peers: [], connectedAt: 0, playingAt: 0 });
      performance.clearResourceTimings();
      const [started, startedEpoch] = [performance.now(), Date.now()];
      let leg: BrowserCall;
      try {
        leg = await voice.monitor(callId);
      } catch (error) {
        const code = (error as { code?: string }).code;
        throw new Error(`monitor(): ${code ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
      }
      const monitorResolved = performance.now() - started;
      // The first RTP: the leg's peer connection's inbound-rtp, looked at every 5 ms.
      let firstRtp = 0;
      while (!firstRtp) {
        if (performance.now() - started > timeoutMs) {
          const { call, audio } = voice.status();
          throw new Error(`no RTP at the supervisor's page in ${timeoutMs} ms (leg ${call?.state ?? 'none'}, audio ${audio}, ${marks.invites.length} INVITE, ${marks.peers.length} peer connection)`);
        }
        for (const { pc } of marks.peers) {
          (await pc.getStats()).forEach((report: { type?: string; kind?: string; packetsReceived?: number }) => {
            if (report.type === 'inbound-rtp' && report.kind === 'audio' && (report.packetsReceived ?? 0) > 0) firstRtp ||= performance.now();
          });
        }
        if (!firstRtp) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await when(() => marks.connectedAt > 0 && marks.playingAt > 0, timeoutMs, 'the monitor leg connected and playing');
      const posted = performance.getEntriesByType('resource').find((entry) => entry.name.endsWith(`/calls/${callId}/monitor`)) as PerformanceResourceTiming | undefined;
      const invite = marks.invites[0];
      const answer = marks.answers.find((sent) => sent.sipCallId === invite?.sipCallId);
      const peer = marks.peers[0];
      const since = (at: number | undefined) => (at ? at - started : Number.NaN);
      const figures = {
        legId: leg.id,
        startedEpoch,
        answer201: since(posted?.responseEnd),
        monitorResolved,
        invite: since(invite?.at),
        answered: since(answer?.at),
        connected: since(marks.connectedAt),
        firstRtp: firstRtp - started,
        playing: since(marks.playingAt),
        trackUnmuted: since(peer?.unmuteAt),
      };
      const hangup = performance.now();
      await voice.hangup();
      await when((status) => !status.busy, timeoutMs, 'busy false after hangup()');
      return { ...figures, hangupToIdle: performance.now() - hangup };
    },
    { callId, timeoutMs: STEP_TIMEOUT_MS },
  );
}

/** The agent's call, `runs` monitor legs of it from the supervisor's page, one at a time; one measurement script. */
export async function measureMonitor(runs: number): Promise<{ rows: Row[]; figures: MonitorFigures }> {
  const simulator = await startBenchSimulator();
  const control = createSimulatorControl(simulator.url);
  const pages: BenchPage[] = [];
  let app: Awaited<ReturnType<typeof startSupervisorApp>> | undefined;
  try {
    app = await startSupervisorApp(simulator.url);
    const agent = await openBenchPage(app.url, AGENT);
    pages.push(agent);
    const supervisor = await openBenchPage(app.url, SUPERVISOR);
    pages.push(supervisor);
    await supervisor.page.evaluate(watchInPage);
    await supervisor.page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
    const callId = await agentInCall(agent.page);
    const rounds: MonitorRound[] = [];
    for (let run = 0; run < runs; run++) {
      await sleep(staggerMs(run));
      const { startedEpoch, ...round } = await monitorOnce(supervisor.page, callId);
      const { facts } = await control.call(round.legId);
      const fromStart = (iso: string | null) => (iso ? Date.parse(iso) - startedEpoch : Number.NaN);
      rounds.push({ ...round, serviceInviteSent: fromStart(facts.inviteSentAt), serviceMediaUp: fromStart(facts.mediaConnectedAt), packetsFromPage: facts.media?.packetsFromBrowser ?? null });
    }
    const agentStatus = await agent.page.evaluate(() => (window as unknown as PageGlobals).voice.status().call?.state);
    if (agentStatus !== 'connected') throw new Error(`bench: the agent's call is ${agentStatus ?? 'gone'} after the rounds, not connected`);
    await agent.page.evaluate(async () => {
      const { voice, when } = window as unknown as PageGlobals;
      await voice.hangup();
      await when((status) => !status.busy, 10_000, 'the agent idle');
      await voice.disconnect();
    });
    await supervisor.page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
    return report(rounds);
  } finally {
    for (const page of pages) await page.close();
    await app?.close();
    await simulator.stop();
  }
}

/** The part's rows beside its targets (docs/bench.md, "Monitor", says why these). */
function report(rounds: MonitorRound[]): { rows: Row[]; figures: MonitorFigures } {
  const of = (name: Exclude<keyof MonitorRound, 'legId' | 'packetsFromPage'>) => spread(rounds.map((round) => round[name]).filter((value) => Number.isFinite(value)));
  const firstRtp = of('firstRtp');
  const figures: MonitorFigures = {
    monitorToFirstRtp: { ...firstRtp, slowest: Math.max(...rounds.map((round) => round.firstRtp)) },
    answer201: of('answer201'),
    invite: of('invite'),
    answered: of('answered'),
    connected: of('connected'),
    playing: of('playing'),
    trackUnmuted: of('trackUnmuted'),
    serviceInviteSent: of('serviceInviteSent'),
    serviceMediaUp: of('serviceMediaUp'),
    hangupToIdle: of('hangupToIdle'),
    rounds,
  };
  const split = (names: Spread[]) => `${names.map((s) => ms(s.median)).join(' / ')} median, ${names.map((s) => ms(s.p95)).join(' / ')} p95`;
  const { answer201, invite, answered, connected, playing, trackUnmuted, serviceInviteSent, serviceMediaUp, hangupToIdle } = figures;
  return {
    figures,
    rows: [
      {
        figure: "monitor: monitor(callId) → the call's first RTP at the supervisor's page (inbound-rtp packetsReceived > 0)",
        value: `${ms(firstRtp.median)} median, ${ms(firstRtp.p95)} p95, ${ms(figures.monitorToFirstRtp.slowest)} slowest (${firstRtp.runs} runs)`,
        target: '<= 500 ms median, <= 1 s p95',
        met: firstRtp.median <= 500 && firstRtp.p95 <= 1000,
      },
      { figure: "monitor: the split from monitor(): the 201 / the INVITE at the page / the page's 200 OK / connected (onStatus)", value: split([answer201, invite, answered, connected]), target: 'measured', met: true },
      { figure: "monitor: the simulator's stamps from monitor(): INVITE sent / the leg's media up", value: split([serviceInviteSent, serviceMediaUp]), target: 'measured', met: true },
      { figure: "monitor: from monitor(): audio 'playing' / the remote track unmuted", value: split([playing, trackUnmuted]), target: 'measured', met: true },
      { figure: 'monitor: hangup() of the leg → busy false', value: `${ms(hangupToIdle.median)} median, ${ms(hangupToIdle.p95)} p95`, target: 'measured', met: true },
    ],
  };
}
