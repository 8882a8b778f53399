import type { Page } from '@playwright/test';
import { launchUserChromium } from './browsers.js';
import { callConnected, expect, hangUp, INDEPENDENT, logIn, logInAndConnect, test, type Simulator } from './fixtures.js';

/**
 * An agent's phone tab behind the CRM, in a Chromium that hides and throttles it as a user's does
 * (`launchUserChromium`): the tab holding the phone is hidden behind a second tab of the same
 * user, its chained timers run once a minute, and it must stay `ready`, registered the whole time, and take the
 * other tab's call at the first attempt. A page the browser freezes and resumes keeps its socket.
 */

/**
 * Hidden long enough for two whole throttled minutes: a loaded page hidden for 60 s wakes at the next whole minute
 * (up to 120 s), then once a minute, so by 240 s two full minutes have passed between wake-ups.
 */
const HIDDEN_MS = 250_000;

/** A wait between wake-ups this long is a throttled minute: unthrottled, the page's one-second timer runs every 1-2 s. */
const THROTTLED_GAP_MS = 50_000;

/**
 * Run in the page before its scripts: when each wake-up of a chained one-second timer came (as the keep-alive's
 * chain is throttled, so is this one), and every connection state the page shows from the moment it is asked.
 */
function watchPage(): void {
  const w = window as unknown as { __wakeUps: number[]; __states: string[]; __watchStates(): void };
  w.__wakeUps = [];
  w.__states = [];
  const tick = () => {
    w.__wakeUps.push(Date.now());
    setTimeout(tick, 1000);
  };
  setTimeout(tick, 1000);
  // The offer ring's tone (`createOfferRinger`) and desktop notifications, as the page makes them.
  const tones: AudioContext[] = [];
  const notices: string[] = [];
  Object.assign(w, { __tones: tones, __notices: notices });
  const RealContext = window.AudioContext;
  window.AudioContext = class extends RealContext {
    constructor(options?: AudioContextOptions) {
      super(options);
      tones.push(this);
    }
  };
  const RealNotification = window.Notification;
  if (RealNotification) {
    window.Notification = class extends RealNotification {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        notices.push(`${title}: ${options?.body ?? ''}`);
      }
    };
  }
  w.__watchStates = () => {
    const cell = document.querySelector('[data-testid="connection"]');
    if (cell) new MutationObserver(() => w.__states.push(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  };
}

/** The gaps between the page's wake-ups since `since` (ms since the epoch), longest first. */
const wakeUpGaps = (page: Page, since: number) =>
  page.evaluate((from) => {
    const times = (window as unknown as { __wakeUps: number[] }).__wakeUps.filter((at) => at >= from);
    return times
      .slice(1)
      .map((at, i) => at - times[i]!)
      .sort((a, b) => b - a);
  }, since);

const shownStates = (page: Page) => page.evaluate(() => (window as unknown as { __states: string[] }).__states);

/** The page's ring tones: each one's state, and whether its audio clock runs (it moved over 300 ms). */
const tones = (page: Page) =>
  page.evaluate(async () => {
    const made = (window as unknown as { __tones: AudioContext[] }).__tones;
    const before = made.map((context) => context.currentTime);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return made.map((context, i) => ({ state: context.state, clockRuns: context.currentTime > before[i]! }));
  });

async function callsOf(simulator: Simulator, sessionId: string): Promise<number> {
  return (await simulator.callsOfSession(sessionId)).length;
}

test('an agent hidden behind another tab for four minutes, two of them throttled, stays ready and registered, and takes calls at the first attempt', async ({ app, simulator }) => {
  test.setTimeout(HIDDEN_MS + 120_000);
  const chromium = await launchUserChromium();
  try {
    const { context } = chromium;
    await context.addInitScript(watchPage);
    await context.grantPermissions(['notifications'], { origin: new URL(app.demo).origin });
    const leader = context.pages()[0] ?? (await context.newPage());
    await logIn(leader, 'e2e-background-tab', app.demo);
    await expect(leader.getByTestId('tab-role')).toHaveText('shared, leader');
    await leader.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect(leader.getByTestId('connection')).toHaveText('ready');
    const sessionId = (await leader.getByTestId('session-id').textContent()) ?? '';
    await leader.evaluate(() => (window as unknown as { __watchStates(): void }).__watchStates());

    // The same user's second tab opens in front: the phone's tab is hidden behind it.
    const follower = await context.newPage();
    await follower.goto(app.demo);
    await expect(follower.getByTestId('tab-role')).toHaveText('shared, follower');
    expect(await leader.evaluate(() => document.visibilityState)).toBe('hidden');
    const hiddenAt = Date.now();

    // The follower shows the leader's status all along; the registrar says whether it held.
    for (let waited = 0; waited < HIDDEN_MS; waited += 10_000) {
      await follower.waitForTimeout(10_000);
      // What the tab shows at that moment, read once: ready all along, not ready again by the time a retry looks.
      expect(await follower.getByTestId('connection').textContent()).toBe('ready');
    }
    // Throttled indeed: the hidden page's timers slept a whole minute at least twice.
    const gaps = await wakeUpGaps(leader, hiddenAt);
    expect(gaps.filter((gap) => gap >= THROTTLED_GAP_MS).length, `the hidden page's longest waits between wake-ups: ${gaps.slice(0, 5).join(', ')} ms`).toBeGreaterThanOrEqual(2);
    expect(await shownStates(leader)).toEqual([]);
    expect(await simulator.registration(sessionId)).toMatchObject({ registered: true, unregisteredMs: 0, sockets: 1 });

    // The visible tab's call goes through the hidden one at the first attempt.
    await callConnected(follower);
    expect(await callsOf(simulator, sessionId)).toBe(1);
    await hangUp(follower);

    // A caller offered to this agent rings the hidden phone: its tone plays there on a running audio clock, and
    // a desktop notification says who calls; the visible tab shows the offer and accepts it.
    await follower.getByTestId('availability-switch').click();
    await expect(follower.getByTestId('availability-switch')).toHaveAttribute('aria-checked', 'true');
    const queues = (await (await follower.request.get(new URL('/voice/queues', app.demo).href)).json()) as { queues: Array<{ id: string; name: string }> };
    const sales = queues.queues.find((queue) => queue.name === 'Sales')?.id ?? '';
    const caller = await simulator.inbound({ queueId: sales, from: '+12025550131', to: '+18005550100' });
    await expect(follower.getByTestId('offer-card')).toHaveAttribute('data-call-id', caller.id);
    expect(await leader.evaluate(() => document.visibilityState)).toBe('hidden');
    await expect.poll(() => tones(leader)).toEqual([{ state: 'running', clockRuns: true }]);
    expect(await leader.evaluate(() => (window as unknown as { __notices: string[] }).__notices)).toEqual(['Caller waiting: +12025550131']);
    await follower.getByRole('button', { name: 'Accept' }).click();
    await expect(follower.getByTestId('call-state')).toHaveText('connected');
    expect((await tones(leader)).map((tone) => tone.state)).toEqual(['closed']);
    await hangUp(follower);

    // Shown again, the phone's tab calls at once, on the socket it kept.
    await leader.bringToFront();
    expect(await leader.evaluate(() => document.visibilityState)).toBe('visible');
    await callConnected(leader);
    expect(await callsOf(simulator, sessionId)).toBe(2);
    await hangUp(leader);
    expect(await shownStates(leader)).toEqual([]);
    expect(await simulator.registration(sessionId)).toMatchObject({ registered: true, unregisteredMs: 0, sockets: 1 });
  } finally {
    await chromium.close();
  }
});

/**
 * Chromium 156 closes a frozen page's WebSockets as it resumes it (the server sees 1001, the page 1006): no socket
 * survives a freeze, so the page must come back by itself, at once.
 */
test('a hidden page frozen for 30 s and resumed is ready again by itself on a new socket, registered, and calls', async ({ app, simulator }) => {
  test.setTimeout(120_000);
  const chromium = await launchUserChromium();
  try {
    const { context } = chromium;
    await context.addInitScript(watchPage);
    const page = context.pages()[0] ?? (await context.newPage());
    const sessionId = await logInAndConnect(page, 'e2e-frozen-tab', `${app.demo}${INDEPENDENT}`);
    await page.evaluate(() => {
      const w = window as unknown as { __lifecycle: string[]; __watchStates(): void };
      w.__watchStates();
      w.__lifecycle = [];
      for (const name of ['freeze', 'resume']) document.addEventListener(name, () => w.__lifecycle.push(name));
    });
    // Chromium freezes only a hidden page: another tab goes in front first.
    const front = await context.newPage();
    expect(await page.evaluate(() => document.visibilityState)).toBe('hidden');

    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
    await front.waitForTimeout(30_000);
    // Frozen, the page answers nothing, but its socket and registration held.
    expect(await simulator.registration(sessionId)).toMatchObject({ registered: true, unregisteredMs: 0, sockets: 1 });
    await cdp.send('Page.setWebLifecycleState', { state: 'active' });
    expect(await page.evaluate(() => (window as unknown as { __lifecycle: string[] }).__lifecycle)).toEqual(['freeze', 'resume']);
    await expect(page.getByTestId('connection')).toHaveText('ready');
    await expect.poll(() => shownStates(page)).toEqual(['reconnecting', 'ready']);
    // How soon: the bench's figure (its `background` part), not an assertion here.
    expect(await simulator.registration(sessionId)).toMatchObject({ registered: true, sockets: 2 });

    await page.bringToFront();
    await callConnected(page);
    await hangUp(page);
    expect(await shownStates(page)).toEqual(['reconnecting', 'ready']);
  } finally {
    await chromium.close();
  }
});
