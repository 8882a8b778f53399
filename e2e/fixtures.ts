import AxeBuilder from '@axe-core/playwright';
import { expect, test as base, type Page } from '@playwright/test';
import { createSimulatorControl, type SimulatorControl } from '../simulator/control-client.js';

/**
 * Fixtures shared by the e2e specs: the app's URLs, the simulator's control API, and a page that
 * records its RTCPeerConnections so a test can read the browser's own `getStats()`.
 */

/** The simulator's control API (`@voice-browser/simulator`'s client, as an integrator's tests get it) and its root URL. */
export interface Simulator extends SimulatorControl {
  url: string;
}

export const test = base.extend<{ simulator: Simulator }>({
  baseURL: async ({}, use) => use(process.env.E2E_BASE_URL),
  simulator: async ({}, use) => {
    const url = process.env.E2E_SIM_URL ?? '';
    await use({ url, ...createSimulatorControl(url) });
  },
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

/** The simulator's key, as the global setup started it (never the shell's SIM_API_KEY). */
const SIM_KEY = process.env.E2E_SIM_API_KEY ?? '';

/** A fault of the network under a page: its session's SIP socket closed or stalled, or its call's media lost for `ms`. */
export type NetworkFault = { fault: 'close-sip-socket' | 'stall-sip-socket'; sessionId: string } | { fault: 'media-blackhole'; ms: number; callId: string };

/**
 * Strikes a network fault now: arms it on the next read of its session or call and makes that read with the
 * suite's key (left to the page's own polling, it would strike up to a second later). Resolves once the read
 * was answered: the fault applies from there.
 */
export async function strikeNow(simulator: Simulator, fault: NetworkFault): Promise<void> {
  const read = 'sessionId' in fault ? `browser-sessions/${fault.sessionId}` : `browser-calls/${fault.callId}`;
  await simulator.fault({ method: 'GET', path: `/api/v1/voice/${read.replace(/[^/]+$/, ':id')}`, ...fault });
  const response = await fetch(`${simulator.url}/api/v1/voice/${read}`, { headers: { 'x-api-key': SIM_KEY } });
  expect(response.status).toBe(200);
}

/**
 * Where the suite saves screenshots of the main states: e2e/artifacts/ (gitignored) by default;
 * `SCREENSHOTS_DIR=docs/screenshots npm run test:e2e` refreshes the copies the README shows.
 */
export const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR ?? 'e2e/artifacts/screenshots';

/** The width the set of state screenshots is taken at: a phone's, so the set reads as one. */
const SCREENSHOT_WIDTH = 360;

/**
 * Saves a screenshot of the page's current state as `<name>.png` under {@link SCREENSHOTS_DIR}: by default the
 * full page at 360 px wide whatever the spec's viewport (it is put back afterwards); with `asSeen`, exactly
 * the viewport the spec set, as a person at that screen sees it.
 */
export async function screenshot(page: Page, name: string, options: { asSeen?: boolean } = {}): Promise<void> {
  if (options.asSeen) return void (await page.screenshot({ path: `${SCREENSHOTS_DIR}/${name}.png` }));
  const viewport = page.viewportSize();
  const resize = viewport !== null && viewport.width !== SCREENSHOT_WIDTH;
  if (resize) await page.setViewportSize({ width: SCREENSHOT_WIDTH, height: viewport.height });
  await page.screenshot({ path: `${SCREENSHOTS_DIR}/${name}.png`, fullPage: true });
  if (resize) await page.setViewportSize(viewport);
}

/**
 * `username` for this run of the current test: each browser's project, a repeat (`--repeat-each`) and a retry
 * get a user of their own, so a run never meets the session or call an earlier one left at the app (which
 * would put it in recovery): both projects share one app.
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
  await expect(page.getByTestId('connection')).toHaveText('ready');
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

/** axe-core's WCAG 2.1 A and AA violations on the page now, each as its rule, its impact and the elements it names. */
export async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/**
 * Whether axe-core runs in this test's browser: not in Firefox, whose content process (ESR 153) crashes with
 * SIGSEGV at the page's next input after axe's target-size or nested-interactive rule. The markup axe audits is
 * the same in both engines, so Chromium's audit covers it.
 */
export function axeRunsHere(): boolean {
  return base.info().project.name !== 'firefox';
}
