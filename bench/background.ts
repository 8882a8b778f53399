import { readdirSync, readFileSync } from 'node:fs';
import { chromium as playwright, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import { launchUserChromium } from '../e2e/browsers.js';
import { createSimulatorControl, type SimulatorControl } from '../simulator/http/control-client.js';
import { setUpTabs } from './browser.js';
import { ms, spread, type Row, type Spread } from './stats.js';

/**
 * An agent's phone tab behind the CRM, in a Chromium that hides and throttles it as a user's does
 * (the e2e suite's `launchUserChromium`: no anti-throttling switches, no focus emulation; a loaded tab hidden 60 s
 * runs its chained timers once a minute). Tab A leads the shared tabs and holds the phone; tab B, a follower of the same user, opens in
 * front of it, so A is `hidden`. First A stays hidden `hiddenMinutes`: how long the registrar had no binding for
 * the session meanwhile, and whether A's connection ever left `ready`. Then B's `startCall()` to B's status
 * showing the call `connected`, with A hidden and throttled again before each call; the same calls right after
 * the previous hangup; and the same calls with A in front (B is then hidden behind it in its window, so they are
 * placed from C, a follower in a window of its own, visible like B was). Every page keeps, from before its
 * scripts run, the times of a chained one-second timer's wake-ups: the proof that A really ran once a minute.
 * Times are `Date.now()` of one browser on this machine, the simulator's stamps the same clock.
 *
 * Nothing is attached to the pages while A is hidden: once the tabs are set up the bench disconnects, B runs the
 * hidden calls by itself (A's wake-ups reach it over a BroadcastChannel), the bench follows them at the simulator,
 * and connects again to read what the pages kept.
 *
 * Until 2026-11-27 the part failed: B never placed a hidden call, and A's record showed no wake-up gap over 1.5 s. A
 * had recorded no wake-up at all: the wake-up watcher went in before the `__name` shim setUpTabs adds, and tsx's
 * compiled watcher calls `__name()`, so it threw as every page started (`keepWakeUps` now puts the shim first). Without
 * a single wake-up of A, B waited for a sleep it could not see and gave up. The instrumented timers, the JSON page, the
 * BroadcastChannel and the disconnect, suspected then, were tried each alone and together: none keeps A from sleeping a
 * minute at a time. What can put it off is the moment B hides A: Chromium fixes a hidden page's grace before intensive
 * throttling when it hides it, one minute for a page done loading, five for one still loading (its first meaningful
 * paint waits for half a second without network requests), and B opened within a second of A's load. So A stays in
 * front {@link SETTLED_MS} after it connects, as an agent's phone tab is open a while before the CRM's.
 */

interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
  listen(listener: (status: VoiceBrowserStatus) => void): void;
  __wakeUps: number[];
  __connections: Array<{ at: number; connection: string }>;
  /** In A: its wake-ups go out on the BroadcastChannel too. In B: A's wake-ups as they came. */
  __broadcastWakeUps?: boolean;
  __leaderWakeUps: number[];
  /** In B: the hidden calls it ran by itself, once done, or why they stopped. */
  __hidden?: { throttled: CallSample[]; backToThrottledMs: number[]; backToBack: CallSample[] } | { error: string };
}

/** One call as measured: the follower's view, and the simulator's stamps, all ms after `startCall()`. */
interface CallSample {
  took: number;
  callId: string;
  /** The service's INVITE sent to the leader, the leader's answer, the media up (the simulator's stamps). */
  inviteSent: number | null;
  answered: number | null;
  media: number | null;
}

/** What a row of calls measured. */
interface CallsFigures extends Spread {
  samples: CallSample[];
  /** The median ms after startCall() of the simulator's INVITE, the leader's answer and the media. */
  inviteSentMedian: number;
  answeredMedian: number;
  mediaMedian: number;
}

export interface BackgroundFigures {
  hiddenMinutes: number;
  /** The registrar's record for the session: ms without a binding during the hidden minutes, REGISTERs, sockets. */
  unregisteredMs: number;
  refreshes: number;
  sockets: number;
  /** Every connection state A showed from the moment it was hidden to the end of the part (none: it stayed `ready`). */
  connectionsLeft: Array<{ at: number; connection: string }>;
  /** A's wake-ups while hidden: gaps of 50 s or more, and the longest. */
  minuteGaps: number;
  longestGapMs: number;
  hiddenThrottled: CallsFigures;
  /** Per hidden call, from the previous hangup (busy false) to A's first minute-long sleep after it. */
  backToThrottledMs: number[];
  hiddenBackToBack: CallsFigures;
  visible: CallsFigures;
}

const ANSWER_AT_ONCE = '+12025550100';
/** A wake-up gap this long or longer is the once-a-minute throttling. */
const THROTTLED_GAP_MS = 50_000;
/** A hidden call may be slow: measured up to this, not failed. */
const CALL_TIMEOUT_MS = 90_000;
/** The hidden call's target: the visible median plus this. */
const HIDDEN_MARGIN_MS = 500;
/** How long A stays in front, connected, before B hides it: long past its loading, so it is throttled after a minute hidden. */
const SETTLED_MS = 5000;

/** Run in every page before its scripts: a chained one-second timer, as the keep-alive's, noting its wake-ups. */
function watchWakeUps(): void {
  const w = window as unknown as PageGlobals;
  w.__wakeUps = [];
  w.__leaderWakeUps = [];
  const channel = new BroadcastChannel('bench-background-wake-ups');
  channel.onmessage = (event: MessageEvent<number>) => w.__leaderWakeUps.push(event.data);
  const tick = () => {
    const at = Date.now();
    w.__wakeUps.push(at);
    if (w.__broadcastWakeUps) channel.postMessage(at);
    setTimeout(tick, 1000);
  };
  setTimeout(tick, 1000);
}

/**
 * Every page `context` opens from now on keeps its wake-ups. tsx compiles `watchWakeUps` with esbuild's keepNames, so
 * its timer calls `__name()`: the shim goes in first (setUpTabs adds it too, but after this).
 */
async function keepWakeUps(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: 'window.__name = (fn) => fn;' });
  await context.addInitScript(watchWakeUps);
}

const sleep = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait));
const say = (line: string) => process.stderr.write(`bench: background: ${line}\n`);
const visibility = (page: Page) => page.evaluate(() => document.visibilityState);

/**
 * Run in B, not awaited: waits `hiddenMs`, then `runs` calls, each once A has slept a minute (a gap of `gapMs`
 * or more between two of its wake-ups, begun after the previous hangup), then `runs` calls each a second after
 * the previous hangup; leaves the samples in `__hidden`. One function past 40 lines because it runs in the page.
 */
function runHiddenCalls({ runs, hiddenMs, since, to, timeout, gapMs }: { runs: number; hiddenMs: number; since: number; to: string; timeout: number; gapMs: number }): void {
  const w = window as unknown as PageGlobals;
  const wait = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait));
  const sleptSince = async (from: number) => {
    for (const deadline = Date.now() + 180_000; Date.now() < deadline; await wait(250)) {
      const times = w.__leaderWakeUps.filter((at) => at >= from);
      const i = times.findIndex((at, k) => k > 0 && at - (times[k - 1] as number) >= gapMs);
      if (i > 0) return times[i - 1] as number;
    }
    throw new Error('the hidden leader did not go back to once-a-minute wake-ups within 3 minutes');
  };
  const call = async () => {
    const started = Date.now();
    const connected = w.when((s) => s.call?.state === 'connected', timeout, 'connected');
    const placed = await w.voice.startCall({ from: '+12025550199', to }, { idempotencyKey: crypto.randomUUID() });
    const took = (await connected) - started;
    await w.voice.hangup();
    const idleAt = await w.when((s) => !s.busy, 30_000, 'busy false after hangup()');
    return { sample: { took, callId: placed.id, inviteSent: started, answered: null, media: null }, idleAt };
  };
  void (async () => {
    const throttled: CallSample[] = [];
    const backToThrottledMs: number[] = [];
    const backToBack: CallSample[] = [];
    await wait(hiddenMs);
    let idleAt = since;
    for (let run = 0; run < runs; run++) {
      const slept = await sleptSince(idleAt);
      if (run > 0) backToThrottledMs.push(slept - idleAt);
      const done = await call();
      throttled.push(done.sample);
      idleAt = done.idleAt;
    }
    for (let run = 0; run < runs; run++) {
      await wait(1000);
      backToBack.push((await call()).sample);
    }
    w.__hidden = { throttled, backToThrottledMs, backToBack };
  })().catch((error: unknown) => {
    w.__hidden = { error: error instanceof Error ? error.message : String(error) };
  });
}

/** The CDP endpoint of the user Chromium this process started, from its profile's DevToolsActivePort. */
function userChromiumEndpoint(): string {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const ppid = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1];
      if (Number(ppid) !== process.pid) continue;
      const profile = /--user-data-dir=([^\0]*voice-browser-user-chromium-[^\0]*)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1];
      if (!profile) continue;
      const [port, path] = readFileSync(`${profile}/DevToolsActivePort`, 'utf8').split('\n');
      return `ws://127.0.0.1:${port}${path}`;
    } catch {
      // A process that ended meanwhile.
    }
  }
  throw new Error('the user Chromium this bench started was not found');
}

/** The simulator's stamps for a call B placed, ms after its `startCall()`, beside B's figure. */
async function withStamps(sim: SimulatorControl, sample: CallSample): Promise<CallSample> {
  const started = sample.inviteSent as number;
  const { facts } = await sim.call(sample.callId);
  const after = (iso: string | null) => (iso === null ? null : Date.parse(iso) - started);
  return { ...sample, inviteSent: after(facts.inviteSentAt), answered: after(facts.browserAnsweredAt), media: after(facts.mediaConnectedAt) };
}

/** Places a call from `page` and resolves with ms from `startCall()` to connected in `page`'s status, and the call id. */
async function callOnce(page: Page): Promise<{ took: number; callId: string; started: number }> {
  return page.evaluate(
    async ({ to, timeout }) => {
      const { voice, when } = window as unknown as PageGlobals;
      const started = Date.now();
      const connected = when((s) => s.call?.state === 'connected', timeout, 'connected');
      const call = await voice.startCall({ from: '+12025550199', to }, { idempotencyKey: crypto.randomUUID() });
      return { took: (await connected) - started, callId: call.id, started };
    },
    { to: ANSWER_AT_ONCE, timeout: CALL_TIMEOUT_MS },
  );
}

/** Hangs up from `page`; resolves with Date.now() once its status shows `busy` false. */
const hangUp = (page: Page) =>
  page.evaluate(async () => {
    const { voice, when } = window as unknown as PageGlobals;
    await voice.hangup();
    return when((s) => !s.busy, 30_000, 'busy false after hangup()');
  });

/** One call from `page`, hung up, with the simulator's stamps beside the page's figure. */
async function measuredCall(page: Page, sim: SimulatorControl): Promise<{ sample: CallSample; idleAt: number }> {
  const { took, callId, started } = await callOnce(page);
  const idleAt = await hangUp(page);
  const { facts } = await sim.call(callId);
  const after = (iso: string | null) => (iso === null ? null : Date.parse(iso) - started);
  return { sample: { took, callId, inviteSent: after(facts.inviteSentAt), answered: after(facts.browserAnsweredAt), media: after(facts.mediaConnectedAt) }, idleAt };
}

function callsFigures(samples: CallSample[]): CallsFigures {
  const median = (values: Array<number | null>) => spread(values.filter((v): v is number => v !== null)).median;
  return {
    ...spread(samples.map((s) => s.took)),
    samples,
    inviteSentMedian: median(samples.map((s) => s.inviteSent)),
    answeredMedian: median(samples.map((s) => s.answered)),
    mediaMedian: median(samples.map((s) => s.media)),
  };
}

/** A page opened in a window of its own (CDP `Target.createTarget` with `newWindow`): in front there, so visible. */
async function openInNewWindow(context: BrowserContext): Promise<Page> {
  const browser = context.browser();
  if (!browser) throw new Error('the user Chromium has no browser to open a window in');
  const cdp = await browser.newBrowserCDPSession();
  const opened = context.waitForEvent('page');
  await cdp.send('Target.createTarget', { url: 'about:blank', newWindow: true });
  const page = await opened;
  await cdp.detach();
  return page;
}

/** The background rows; one measurement script, read top to bottom. */
export async function measureBackground(demoUrl: string, simUrl: string, runs: number, hiddenMinutes: number): Promise<{ rows: Row[]; figures: BackgroundFigures }> {
  const sim = createSimulatorControl(simUrl);
  const chromium = await launchUserChromium();
  try {
    const context = chromium.context as unknown as BrowserContext;
    await keepWakeUps(context);
    const tabs = await setUpTabs(context, demoUrl, 'bench-background', 1);
    const leader = tabs.pages[0] as Page;
    const sessionId = await leader.evaluate(async () => {
      const { voice, when, listen } = window as unknown as PageGlobals;
      await when((s) => s.tabs.leader, 5000, 'the first tab leading');
      await voice.connect();
      const w = window as unknown as PageGlobals;
      w.__connections = [];
      let last = voice.status().connection as string;
      listen(({ connection }) => {
        if (connection !== last) w.__connections.push({ at: Date.now(), connection });
        last = connection;
      });
      return voice.status().session?.id ?? '';
    });
    if (!sessionId) throw new Error('the leader connected without a session');
    await sleep(SETTLED_MS);

    // B, the same user's second tab, opens in front: A, holding the phone, is hidden behind it.
    const follower = await tabs.open();
    await follower.evaluate(() => (window as unknown as PageGlobals).when((s) => !s.tabs.leader && s.connection === 'ready', 5000, 'a ready follower'));
    if ((await visibility(leader)) !== 'hidden' || (await visibility(follower)) !== 'visible') throw new Error('the leader is not hidden behind the follower');
    const before = await sim.registration(sessionId);
    const hiddenAt = Date.now();
    const hiddenMs = hiddenMinutes * 60_000;

    // Nothing attached from here while A is hidden: B waits the hidden minutes, then runs the hidden calls itself.
    await leader.evaluate(() => {
      (window as unknown as PageGlobals).__broadcastWakeUps = true;
    });
    await follower.evaluate(runHiddenCalls, { runs, hiddenMs, since: hiddenAt, to: ANSWER_AT_ONCE, timeout: CALL_TIMEOUT_MS, gapMs: THROTTLED_GAP_MS });
    await context.browser()?.close();

    // 1. Hidden and idle for `hiddenMinutes`: the registrar's record over that time.
    for (let minute = 1; minute <= Math.ceil(hiddenMinutes); minute++) {
      await sleep(Math.min(60_000, hiddenMs - (minute - 1) * 60_000));
      say(`hidden ${minute} of ${hiddenMinutes} minutes`);
    }
    const after = await sim.registration(sessionId);

    // 2. B's calls through hidden A, followed at the simulator until the last has ended (a minute or more each).
    for (const deadline = Date.now() + runs * 240_000; ; await sleep(2000)) {
      const calls = await sim.callsOfSession(sessionId);
      if (calls.length >= 2 * runs && calls.every((call) => !call.busy)) break;
      if (Date.now() > deadline) throw new Error(`the hidden calls did not end in time (${calls.length} placed)`);
    }
    await sleep(2000);
    const browser: Browser = await playwright.connectOverCDP(userChromiumEndpoint(), { noDefaults: true });
    const pages = browser.contexts()[0]?.pages() ?? [];
    const roles = await Promise.all(pages.map((page) => page.evaluate(() => (window as unknown as PageGlobals).voice?.status().tabs.leader)));
    const [hiddenLeader, hiddenFollower] = [pages[roles.indexOf(true)], pages[roles.indexOf(false)]];
    if (!hiddenLeader || !hiddenFollower) throw new Error('the leader and the follower were not found again');
    const hidden = await hiddenFollower.evaluate(() => (window as unknown as PageGlobals).__hidden);
    if (!hidden || 'error' in hidden) throw new Error(`the hidden calls: ${hidden ? hidden.error : 'not done'}`);
    // A's own record of its wake-ups over the idle hidden minutes: the proof it slept a minute at a time.
    const hiddenGaps = await hiddenLeader.evaluate(
      ({ from, to }) => {
        const times = (window as unknown as PageGlobals).__wakeUps.filter((at) => at >= from && at <= to);
        return times.slice(1).map((at, i) => at - (times[i] as number));
      },
      { from: hiddenAt, to: hiddenAt + hiddenMs },
    );
    const minuteGaps = hiddenGaps.filter((gap) => gap >= THROTTLED_GAP_MS).length;
    const hiddenSamples = await Promise.all(hidden.throttled.map((sample) => withStamps(sim, sample)));
    const backToBackSamples = await Promise.all(hidden.backToBack.map((sample) => withStamps(sim, sample)));
    const backToThrottledMs = hidden.backToThrottledMs;

    // 3. A in front. B is now hidden behind it, so C, a follower in a window of its own, places the calls.
    const reconnected = browser.contexts()[0] as BrowserContext;
    await keepWakeUps(reconnected);
    await hiddenLeader.bringToFront();
    const other = await openInNewWindow(reconnected);
    await tabs.prepare(other);
    await other.evaluate(() => (window as unknown as PageGlobals).when((s) => !s.tabs.leader && s.connection === 'ready', 5000, 'a ready follower'));
    if ((await visibility(hiddenLeader)) !== 'visible' || (await visibility(other)) !== 'visible') throw new Error("the leader and the new window's follower are not both visible");
    const visibleSamples: CallSample[] = [];
    for (let run = 0; run < runs; run++) {
      await sleep(1000);
      visibleSamples.push((await measuredCall(other, sim)).sample);
    }

    const end = await sim.registration(sessionId);
    const connectionsLeft = await hiddenLeader.evaluate(() => (window as unknown as PageGlobals).__connections);
    await browser.close();
    const figures: BackgroundFigures = {
      hiddenMinutes,
      unregisteredMs: after.unregisteredMs - before.unregisteredMs,
      refreshes: after.registrations - before.registrations,
      sockets: end.sockets,
      connectionsLeft,
      minuteGaps,
      longestGapMs: Math.max(0, ...hiddenGaps),
      hiddenThrottled: callsFigures(hiddenSamples),
      backToThrottledMs,
      hiddenBackToBack: callsFigures(backToBackSamples),
      visible: callsFigures(visibleSamples),
    };
    return { figures, rows: rowsOf(figures, runs, end.unregisteredMs - before.unregisteredMs) };
  } finally {
    await chromium.close();
  }
}

function rowsOf(f: BackgroundFigures, runs: number, unregisteredToEndMs: number): Row[] {
  const hiddenTarget = f.visible.median + HIDDEN_MARGIN_MS;
  // The simulator stamps the media once its peer connection connects (ICE, DTLS): the hangup right after `connected` may come first.
  const steps = (c: CallsFigures) => {
    const withMedia = c.samples.filter((s) => s.media !== null).length;
    const media = withMedia ? `media ${ms(c.mediaMedian)}, ` : 'media ';
    return `INVITE ${ms(c.inviteSentMedian)}, answered ${ms(c.answeredMedian)}, ${media}up before the hangup in ${withMedia} of ${c.samples.length}`;
  };
  const seconds = (values: number[]) => `${(Math.min(...values) / 1000).toFixed(0)}-${(Math.max(...values) / 1000).toFixed(0)} s`;
  const back = f.backToThrottledMs.length ? seconds(f.backToThrottledMs) : 'n/a';
  return [
    {
      figure: `background: ${f.hiddenMinutes} min hidden, throttled (A's timers ${f.minuteGaps} times a minute apart, longest ${(f.longestGapMs / 1000).toFixed(0)} s) → seconds unregistered`,
      value: `${(f.unregisteredMs / 1000).toFixed(1)} s (${f.refreshes} refreshes, ${f.sockets} socket; ${(unregisteredToEndMs / 1000).toFixed(1)} s to the part's end)`,
      target: '0 s',
      met: f.unregisteredMs === 0 && f.minuteGaps >= 2,
    },
    {
      figure: "background: the hidden leader's connection left `ready`",
      value: f.connectionsLeft.length === 0 ? 'never' : f.connectionsLeft.map((c) => c.connection).join(', '),
      target: 'never',
      met: f.connectionsLeft.length === 0,
    },
    {
      figure: `background: a follower's startCall() → connected, through the hidden leader, throttled again before each call (after a hangup it slept a minute ${back} later)`,
      value: `${ms(f.hiddenThrottled.median)} median, ${ms(f.hiddenThrottled.p95)} p95 (${runs} runs; ${steps(f.hiddenThrottled)})`,
      target: `≤ visible + ${HIDDEN_MARGIN_MS} ms (${ms(hiddenTarget)})`,
      met: f.hiddenThrottled.median <= hiddenTarget,
    },
    {
      figure: 'background: the same, 1 s after the previous hangup (the leader not yet throttled again)',
      value: `${ms(f.hiddenBackToBack.median)} median, ${ms(f.hiddenBackToBack.p95)} p95 (${runs} runs; ${steps(f.hiddenBackToBack)})`,
      target: `≤ visible + ${HIDDEN_MARGIN_MS} ms (${ms(hiddenTarget)})`,
      met: f.hiddenBackToBack.median <= hiddenTarget,
    },
    {
      figure: "background: the same with the leader visible (from a visible follower in another window), same run",
      value: `${ms(f.visible.median)} median, ${ms(f.visible.p95)} p95 (${runs} runs; ${steps(f.visible)})`,
      target: 'measured',
      met: true,
    },
  ];
}
