import AxeBuilder from '@axe-core/playwright';
import { expect, test as base, type Page } from '@playwright/test';
import { startApp, type RunningApp } from '../scripts/start-app.js';
import { createSimulatorControl, type SimulatorControl, type SimulatorEdgeInput, type SimulatorEdgeProfile } from '../simulator/http/control-client.js';
import { withEdge } from '../simulator/http/edge-for-test.js';
import type { Impairment, MediaDirection } from '../simulator/media/impairment.js';
import { startEdge, type SipEdge } from './sip-edge.js';

/**
 * Fixtures shared by the e2e specs: the app's URLs, the simulator's control API, and a page that
 * records its RTCPeerConnections so a test can read the browser's own `getStats()`.
 */

/** The simulator's control API (`@voice-browser/simulator`'s client, as an integrator's tests get it) and its root URL. */
export interface Simulator extends SimulatorControl {
  url: string;
}

/**
 * The simulator's key for the suite, set here rather than taken from the shell (where a user of
 * `npm run simulator` may have exported another): `vsk_` plus 32 letters or digits (spec 5.2).
 */
export const SIM_API_KEY = 'vsk_E2eSuiteSimulatorKey000000000000';

/** The test-scoped fixtures: the simulator's control API, and the SIP edge it speaks as for the test. */
interface TestFixtures {
  simulator: Simulator;
  /**
   * The SIP edge the simulator speaks as during the test (`test.use({ edgeProfile: 'asterisk' })`, or with its
   * settings: `{ profile: 'asterisk', sessionExpiresSeconds: 4 }`); the edge it had is put back after the test.
   * Unset, the simulator keeps its own (`kamailio`).
   */
  edgeProfile: SimulatorEdgeProfile | SimulatorEdgeInput | undefined;
  /** Applies {@link TestFixtures.edgeProfile} around every test. */
  edgeForTest: void;
}

export const test = base.extend<TestFixtures, { app: RunningApp; sipEdge: SipEdge }>({
  /** The SIP edge between the pages and the simulator (`startEdge`): `none`, or `kamailio` for the project of that name. */
  sipEdge: ['none', { option: true, scope: 'worker' }],
  /**
   * The app exactly as `npm start` runs it, one per worker: each browser's project gets its own, so neither meets
   * the other's callers, quotas or key changes (and a worker started again after a failure gets a fresh one). Its
   * URLs also go into the worker's environment (`E2E_BASE_URL`, `E2E_SIM_URL`) for what runs outside a test's
   * fixtures.
   */
  app: [
    async ({ sipEdge }, use) => {
      // One key serves every spec's user: the suite gets a quota above spec 8's default (tested in test/simulator).
      // +12025550103 rings 3 s rather than 8 and +12025550107 stays unknown 4 s rather than 10: the same behaviour,
      // with room to watch the state before it ends (as +12025550101's 3 s of ringing), in less of the suite's time.
      // A queued caller claimed or offered rings its agent as long as the real service lets it: a loaded
      // machine's page, its axe audit or its offer's checks may take several seconds to answer, and a shorter ring
      // would take the caller back from under them. A call whose page reloaded or closed stays up until
      // the test ends it (a real service ends it after a few quiet seconds, which a busy machine's checks outlast).
      const edge = await startEdge(sipEdge);
      const app = await startApp({
        ...edge.env,
        SIM_API_KEY,
        SIM_QUOTA_PER_MINUTE: '100000',
        SIM_QUOTA_PER_HOUR: '1000000',
        SIM_NO_ANSWER_MS: '3000',
        SIM_OUTCOME_UNKNOWN_MS: '4000',
        SIM_QUEUE_ANSWER_TIMEOUT_MS: '20000',
        SIM_MEDIA_TIMEOUT_MS: String(120_000),
      }).catch(async (error: unknown) => {
        await edge.stop();
        throw error;
      });
      process.env.E2E_BASE_URL = app.demo;
      process.env.E2E_SIM_URL = app.sim;
      try {
        await use(app);
      } finally {
        await app.stop();
        await edge.stop();
      }
    },
    // Past the app's own start-up limit, so that limit is the error a slow start reports.
    { scope: 'worker', auto: true, timeout: 120_000 },
  ],
  baseURL: async ({ app }, use) => use(app.demo),
  simulator: async ({ app }, use) => {
    await use({ url: app.sim, ...createSimulatorControl(app.sim) });
  },
  edgeProfile: [undefined, { option: true }],
  edgeForTest: [async ({ simulator, edgeProfile }, use) => withEdge(simulator, edgeProfile, use), { auto: true }],
  page: async ({ page }, use) => {
    await page.addInitScript(recordPeerConnections);
    await use(page);
  },
});

/** Run in a page before its scripts: keeps every RTCPeerConnection it makes in `window.__pcs`. */
export function recordPeerConnections(): void {
  const pcs: RTCPeerConnection[] = [];
  (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs = pcs;
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends Native {
    constructor(config?: RTCConfiguration) {
      super(config);
      pcs.push(this);
    }
  };
}

export { expect };

/**
 * A fault of the network under a page: its session's SIP socket closed or stalled, its call's media lost for `ms`,
 * or its call's media impaired from now on (loss, delay, jitter, reordering, a rate cap; `null` lifts it).
 */
export type NetworkFault =
  | { fault: 'close-sip-socket' | 'stall-sip-socket'; sessionId: string }
  | { fault: 'media-blackhole'; ms: number; callId: string }
  | { fault: 'media-impair'; callId: string; impairment: Impairment | null; direction?: MediaDirection | 'both'; seed?: number };

/**
 * Strikes a network fault now: arms it on the next read of its session or call and makes that read with the
 * suite's key (left to the page's own polling, it would strike up to a second later). Resolves once the read
 * was answered: the fault applies from there.
 */
export async function strikeNow(simulator: Simulator, fault: NetworkFault): Promise<void> {
  const read = 'sessionId' in fault ? `browser-sessions/${fault.sessionId}` : `browser-calls/${fault.callId}`;
  await simulator.fault({ method: 'GET', path: `/api/v1/voice/${read.replace(/[^/]+$/, ':id')}`, ...fault });
  const response = await fetch(`${simulator.url}/api/v1/voice/${read}`, { headers: { 'x-api-key': SIM_API_KEY } });
  expect(response.status).toBe(200);
}

/**
 * Where the suite saves screenshots of the states it reaches, for a person reading a run (gitignored). The
 * README's pictures are `npm run screenshots`'s, taken from the demo alone.
 */
export const SCREENSHOTS_DIR = 'e2e/artifacts/screenshots';

/** The width the set of state screenshots is taken at: a phone's, so the set reads as one. */
const SCREENSHOT_WIDTH = 360;

/**
 * Saves a screenshot of the page's current state as `<name>.png` under {@link SCREENSHOTS_DIR}: by default the
 * full page at 360 px wide whatever the spec's viewport (it is put back afterwards); with `asSeen`, exactly
 * the viewport the spec set, as a person at that screen sees it.
 */
export async function screenshot(page: Page, name: string, options: { asSeen?: boolean } = {}): Promise<void> {
  // Chromium's are the set docs/demo.md shows; another browser's go beside them, in a folder named after it.
  const project = base.info().project.name;
  const path = `${SCREENSHOTS_DIR}/${project === 'chromium' ? '' : `${project}/`}${name}.png`;
  if (options.asSeen) return void (await page.screenshot({ path }));
  const viewport = page.viewportSize();
  const resize = viewport !== null && viewport.width !== SCREENSHOT_WIDTH;
  if (resize) await page.setViewportSize({ width: SCREENSHOT_WIDTH, height: viewport.height });
  await page.screenshot({ path, fullPage: true });
  if (resize) await page.setViewportSize(viewport);
}

/**
 * `username` for this run of the current test: each browser's project, a repeat (`--repeat-each`) and a retry
 * get a user of their own, so a run never meets the session or call an earlier one left at an app it shares
 * (which would put it in recovery), and the two browsers' users are told apart in the logs.
 */
export function userOfThisRun(username: string): string {
  const { repeatEachIndex, retry, project } = base.info();
  const browser = project.name === 'chromium' ? username : `${username}.${project.name}`;
  return repeatEachIndex === 0 && retry === 0 ? browser : `${browser}.${repeatEachIndex}.${retry}`;
}

/** Logs in as `username` (any name: the demo's stand-in login), made unique to this run of the test. */
export async function logIn(page: Page, username: string, path = '/'): Promise<void> {
  await page.goto(path);
  await page.getByLabel('Username').fill(userOfThisRun(username));
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** Logs in and connects; resolves with the session id once the page is `ready`. */
export async function logInAndConnect(page: Page, username: string, path = '/'): Promise<string> {
  await logIn(page, username, path);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByTestId('connection')).toHaveText('ready').catch(async (error: unknown) => {
    // A connect that failed says why on the page: the report carries it, for a run that cannot be repeated.
    const said = await page.getByTestId('error-code').allTextContents().catch(() => []);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nThe page did not connect; it says: ${said.join(' ') || 'nothing'}`, { cause: error });
  });
  return (await page.getByTestId('session-id').textContent()) ?? '';
}

/** Calls `to` from a ready page and waits for `connected`; resolves with the call id. */
export async function callConnected(page: Page, to = '+12025550100'): Promise<string> {
  await page.getByLabel('Number to call').fill(to);
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  const callId = (await page.getByTestId('call-id').textContent()) ?? '';
  expect(callId).toMatch(/^bc_/);
  return callId;
}

/** The demo with each tab a phone of its own (`tabs: 'independent'`), as before shared tabs. */
export const INDEPENDENT = '/?tabs=independent';

/** Reloads a page whose tab holds a call: the browser asks first (`closeProtection`), and the test confirms. */
export async function reloadConfirmed(page: Page): Promise<void> {
  const asked = page.waitForEvent('dialog').then(async (dialog) => {
    const type = dialog.type();
    await dialog.accept();
    return type;
  });
  await page.reload();
  expect(await asked).toBe('beforeunload');
}

/**
 * Waits `ms` on the page's own timers, for a check that something does not happen. A page's timers run late on a
 * loaded machine, so a wait on the test's clock can end before the page's own work came due; a timer the page set
 * earlier for no later fires first, so whatever it would do has begun when this resolves.
 */
export async function afterPageTimers(page: Page, ms: number): Promise<void> {
  await page.evaluate((wait) => new Promise<void>((resolve) => setTimeout(resolve, wait)), ms);
}

/** Hangs up and waits until a terminal read made busy false. */
export async function hangUp(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Hang up' }).click();
  await expect(page.getByTestId('busy')).toHaveText('false');
}

/** The browser's view of its last peer connection: inbound and outbound audio packets, and its state. */
export async function pageAudioStats(page: Page): Promise<{ received: number; sent: number; connectionState: string; peerConnections: number }> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    if (!pc) return { received: 0, sent: 0, connectionState: 'none', peerConnections: 0 };
    let received = 0;
    let sent = 0;
    (await pc.getStats()).forEach((report: { type: string; kind?: string; packetsReceived?: number; packetsSent?: number }) => {
      if (report.type === 'inbound-rtp' && report.kind === 'audio') received += report.packetsReceived ?? 0;
      if (report.type === 'outbound-rtp' && report.kind === 'audio') sent += report.packetsSent ?? 0;
    });
    return { received, sent, connectionState: pc.connectionState, peerConnections: pcs.length };
  });
}

/**
 * axe-core's WCAG 2.1 A and AA violations on the page now, each as its rule, its impact and the elements it names.
 * Every rule runs in both engines; in Firefox, axe reads ARIA references from the attributes ({@link withoutAriaElementReflection}).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const audit = () => new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const results = base.info().project.name === 'firefox' ? await withoutAriaElementReflection(page, audit) : await audit();
  return results.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/**
 * Runs `work` with the page's ARIA element reflection (`ariaLabelledByElements` and its kin on `Element.prototype`)
 * hidden from the page's own scripts, and puts it back after. In Firefox ESR 153, once the page's world has read an
 * element's `ariaLabelledByElements` (axe does, for any rule that asks the role or name of an element with
 * `aria-labelledby`), Playwright's next `getByLabel` or `getByRole(…, { name })` that reads it again from its own
 * world crashes the content process (SIGSEGV). Hidden, axe falls back to the `aria-*` attributes, all the demo sets.
 */
async function withoutAriaElementReflection<T>(page: Page, work: () => Promise<T>): Promise<T> {
  await page.evaluate(() => {
    const proto = Element.prototype as unknown as Record<string, unknown>;
    const hidden: Record<string, PropertyDescriptor> = {};
    for (const name of Object.getOwnPropertyNames(proto).filter((name) => /^aria[A-Z]\w*Elements?$/.test(name))) {
      hidden[name] = Object.getOwnPropertyDescriptor(proto, name) as PropertyDescriptor;
      Object.defineProperty(proto, name, { configurable: true, get: () => undefined });
    }
    (window as unknown as { __ariaReflection: typeof hidden }).__ariaReflection = hidden;
  });
  try {
    return await work();
  } finally {
    await page.evaluate(() => {
      const hidden = (window as unknown as { __ariaReflection?: Record<string, PropertyDescriptor> }).__ariaReflection ?? {};
      for (const [name, descriptor] of Object.entries(hidden)) Object.defineProperty(Element.prototype, name, descriptor);
      delete (window as unknown as { __ariaReflection?: unknown }).__ariaReflection;
    });
  }
}
