import type { Page } from 'playwright-core';
import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import { inPage, type BenchPage, type Engine } from './browser.js';
import { ms, spread, type Row, type Spread } from './stats.js';

/**
 * Guards: how soon a page sees what happened (`connect()` to ready, `startCall()` to connected, an end to
 * `onStatus`), and the poll budget that spends the key's quota (about one read per active call a second,
 * never two in flight, none while idle). In Chromium against the app on loopback, from real calls, as a page
 * using the library sees them; then `connect()` and `startCall()` again in Firefox, against the same app, to
 * hold Firefox to Chromium's figures of the same run (docs/bench.md: at most 1.5 times). Times are the page's own
 * (`performance.now()`), or wall clock on both sides of one machine when the simulator's moment is compared
 * with the page's.
 */

/** What the bench page puts on `window`. */
interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
}

/** What each engine's page measures. */
export interface EngineFigures {
  connectToReady: Spread;
  startCallToConnected: Spread;
  /** From `hangup()` to the read that shows the end (`busy` false). */
  hangupToIdle: Spread;
}

/** Chromium's figures, and Firefox's beside them. */
export interface LatencyFigures extends EngineFigures {
  /** From the simulator ending a call at its `maxDurationSeconds` (its `ending` stamp) to `busy` false. */
  maxDurationEndToStatus: Spread;
  remoteHangupToStatus: Spread;
  pollsPerCallMinute: number;
  maxPollsInFlight: number;
  pollsWhileIdle: number;
  firefox: EngineFigures;
}

/** Firefox's median may be at most this many times Chromium's, same run (docs/bench.md). */
const FIREFOX_RATIO = 1.5;

const ANSWER_AT_ONCE = '+12025550100';

export async function connectOnce(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const { voice } = window as unknown as PageGlobals;
    const started = performance.now();
    await voice.connect();
    const took = performance.now() - started;
    await voice.disconnect();
    return took;
  });
}

/** Places a call and resolves with the page's view: ms from startCall() to connected, and the call id. */
export async function callOnce(page: Page, to: string): Promise<{ took: number; callId: string; connectedAt: number }> {
  return page.evaluate(async (number) => {
    const { voice, when } = window as unknown as PageGlobals;
    const started = Date.now();
    const connected = when((s) => s.call?.state === 'connected', 10_000, 'connected');
    const call = await voice.startCall({ from: '+12025550199', to: number }, { idempotencyKey: crypto.randomUUID() });
    const connectedAt = await connected;
    return { took: connectedAt - started, callId: call.id, connectedAt };
  }, to);
}

/** Hangs up and resolves with the ms from `hangup()` to `busy` false. */
export async function hangupAndSettle(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const { voice, when } = window as unknown as PageGlobals;
    const started = Date.now();
    await voice.hangup();
    return (await when((s) => !s.busy, 10_000, 'busy false after hangup()')) - started;
  });
}

/**
 * The latency rows: every figure in a Chromium page, then the engine's own figures in a Firefox page, both
 * opened by `open` against the same app; one measurement script, read top to bottom.
 */
export async function measureLatency(open: (engine: Engine) => Promise<BenchPage>, simUrl: string, runs: number): Promise<{ figures: LatencyFigures; rows: Row[] }> {
  const chromium = await inPage(await open('chromium'), async (page) => {
    const engine = await measureEngine(page, runs);
    await page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
    const ends = await measureEnds(page, simUrl, runs);
    const polls = await measurePollBudget(page);
    await page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
    return { ...engine, ...ends, ...polls };
  });
  const firefox = await inPage(await open('firefox'), (page) => measureEngine(page, runs));
  return report({ ...chromium, firefox });
}

/** `connect()` to ready, then connected, `startCall()` to connected and `hangup()` to `busy` false, `runs` times each; disconnects at the end. */
async function measureEngine(page: Page, runs: number): Promise<EngineFigures> {
  const connectSamples: number[] = [];
  for (let i = 0; i < runs; i++) connectSamples.push(await connectOnce(page));

  await page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
  const callSamples: number[] = [];
  const hangupToIdleSamples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { took } = await callOnce(page, ANSWER_AT_ONCE);
    callSamples.push(took);
    hangupToIdleSamples.push(await hangupAndSettle(page));
  }
  await page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
  return { connectToReady: spread(connectSamples), startCallToConnected: spread(callSamples), hangupToIdle: spread(hangupToIdleSamples) };
}

/**
 * In a connected page, the simulator ends a call (its max duration, then a remote hangup); how long until onStatus shows the end.
 * Both reach the page as a BYE, and the helper reads at once. (A recipient's answer sends the page nothing,
 * so it shows at the next of the 1 s reads, 0-1 s later: not timed here, see the README.)
 */
async function measureEnds(page: Page, simUrl: string, runs: number): Promise<Pick<LatencyFigures, 'maxDurationEndToStatus' | 'remoteHangupToStatus'>> {
  const maxDurationSamples: number[] = [];
  const hangupSamples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const timed = await page.evaluate(async () => {
      const { voice, when } = window as unknown as PageGlobals;
      const call = await voice.startCall({ from: '+12025550199', to: '+12025550100', maxDurationSeconds: 1 }, { idempotencyKey: crypto.randomUUID() });
      return { callId: call.id, endedAt: await when((s) => s.call?.id === call.id && !s.busy, 10_000, 'the end at max duration') };
    });
    const facts = (await (await fetch(`${simUrl}/__sim/calls/${timed.callId}`)).json()) as { facts: { history: Array<{ state: string; at: string }> } };
    const ending = facts.facts.history.find((entry) => entry.state === 'ending');
    if (!ending) throw new Error(`bench: call ${timed.callId} ended without passing through ending`);
    maxDurationSamples.push(timed.endedAt - Date.parse(ending.at));

    const { callId } = await callOnce(page, ANSWER_AT_ONCE);
    const ended = page.evaluate(() => (window as unknown as PageGlobals).when((s) => !s.busy, 10_000, 'the end after a remote hangup'));
    const hungUpAt = Date.now();
    await fetch(`${simUrl}/__sim/calls/${callId}/remote-hangup`, { method: 'POST' });
    hangupSamples.push((await ended) - hungUpAt);
  }
  return { maxDurationEndToStatus: spread(maxDurationSamples), remoteHangupToStatus: spread(hangupSamples) };
}

/** Poll budget, in a connected page: reads of an active call in 30 s, never two at once; and none while idle. */
async function measurePollBudget(page: Page): Promise<Pick<LatencyFigures, 'pollsPerCallMinute' | 'maxPollsInFlight' | 'pollsWhileIdle'>> {
  const reads: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const isRead = (url: string, method: string) => method === 'GET' && /\/voice\/browser-(calls\/[^/]+|sessions)$/.test(new URL(url).pathname);
  page.on('request', (request) => {
    if (!isRead(request.url(), request.method())) return;
    reads.push(Date.now());
    maxInFlight = Math.max(maxInFlight, ++inFlight);
  });
  const settled = (request: { url(): string; method(): string }) => {
    if (isRead(request.url(), request.method())) inFlight--;
  };
  page.on('requestfinished', settled);
  page.on('requestfailed', settled);
  await callOnce(page, ANSWER_AT_ONCE);
  const windowStart = Date.now();
  await page.waitForTimeout(30_000);
  const inCall = reads.filter((at) => at >= windowStart).length;
  await hangupAndSettle(page);
  await page.waitForTimeout(1500);
  const idleStart = Date.now();
  await page.waitForTimeout(10_000);
  const idle = reads.filter((at) => at >= idleStart).length;
  return { pollsPerCallMinute: inCall * 2, maxPollsInFlight: maxInFlight, pollsWhileIdle: idle };
}

/** The part's rows beside docs/bench.md's targets, each of Firefox's beside Chromium's. */
function report(figures: LatencyFigures): { figures: LatencyFigures; rows: Row[] } {
  const { firefox } = figures;
  const both = (s: Spread) => `${ms(s.median)} median, ${ms(s.p95)} p95 (${s.runs} runs)`;
  const beside = (figure: string, ours: Spread, chromium: Spread): Row => ({
    figure: `${figure}, Firefox`,
    value: `${both(ours)}, ${(ours.median / chromium.median).toFixed(2)} x Chromium's`,
    target: `<= ${FIREFOX_RATIO} x Chromium's median (${ms(FIREFOX_RATIO * chromium.median)})`,
    met: ours.median <= FIREFOX_RATIO * chromium.median,
  });
  const rows: Row[] = [
    { figure: 'connect() to ready', value: both(figures.connectToReady), target: '<= 60 ms median', met: figures.connectToReady.median <= 60 },
    beside('connect() to ready', firefox.connectToReady, figures.connectToReady),
    { figure: 'startCall() to connected (+12025550100)', value: both(figures.startCallToConnected), target: '<= 250 ms median', met: figures.startCallToConnected.median <= 250 },
    beside('startCall() to connected (+12025550100)', firefox.startCallToConnected, figures.startCallToConnected),
    { figure: 'hangup() to busy false', value: both(figures.hangupToIdle), target: '— (a read shows the end)' },
    { figure: 'simulator ends at max duration -> onStatus', value: both(figures.maxDurationEndToStatus), target: '<= 100 ms median', met: figures.maxDurationEndToStatus.median <= 100 },
    { figure: 'simulator remote hangup -> onStatus', value: both(figures.remoteHangupToStatus), target: '<= 100 ms median', met: figures.remoteHangupToStatus.median <= 100 },
    { figure: 'reads per active call-minute', value: `${figures.pollsPerCallMinute} (max ${figures.maxPollsInFlight} in flight)`, target: '60 +- 5, 1 in flight', met: Math.abs(figures.pollsPerCallMinute - 60) <= 5 && figures.maxPollsInFlight <= 1 },
    { figure: 'reads while idle (10 s)', value: String(figures.pollsWhileIdle), target: '0', met: figures.pollsWhileIdle === 0 },
  ];
  return { figures, rows };
}
