/**
 * `@voice-browser/simulator/playwright`: the simulator in an app's Playwright tests. `test` starts one simulator
 * per worker on a free loopback port and hands each test its URLs, its key and its control API; point the
 * app's server at `simulator.baseUrl` with `simulator.apiKey`. {@link chromiumLaunchOptions} gives the browser
 * fake media on loopback.
 *
 * @example
 * ```ts
 * // the Playwright config
 * export default defineConfig({ use: { launchOptions: chromiumLaunchOptions() } });
 *
 * // a spec
 * import { test, expect } from '@voice-browser/simulator/playwright';
 *
 * test('calls', async ({ page, simulator }) => {
 *   const app = await startMyApp({ voiceBaseUrl: simulator.baseUrl, voiceApiKey: simulator.apiKey });
 *   // ... place a call in the page, then:
 *   const { call, media } = await simulator.call(callId);
 *   expect(media?.packetsFromBrowser).toBeGreaterThan(0);
 * });
 * ```
 *
 * @packageDocumentation
 * @module @voice-browser/simulator/playwright
 */

import {
  test as base,
  expect,
  type PlaywrightTestArgs,
  type PlaywrightTestOptions,
  type PlaywrightWorkerArgs,
  type PlaywrightWorkerOptions,
  type TestType,
} from '@playwright/test';
import type { NetworkProfile, SimulatorEdgeInput, SimulatorEdgeProfile } from './http/control-client.js';
import { withEdge } from './http/edge-for-test.js';
import { createSimulatorControl, startSimulator, type SimulatorControl, type SimulatorOptions } from './index.js';

export { chromiumArgs, chromiumLaunchOptions, type ChromiumLaunchOptions } from './browsers/chromium-flags.js';
export { firefoxLaunchOptions, firefoxUserPrefs, type FirefoxLaunchOptions } from './browsers/firefox-prefs.js';
export { createSimulatorControl, SimulatorControlError } from './http/control-client.js';
export type { SimulatorEdge, SimulatorEdgeInput, SimulatorEdgeProfile } from './http/control-client.js';
export type { NetworkProfile, SessionIce, SimulatorNetwork, SimulatorNetworkInput } from './http/control-client.js';
export type { RegistrationRecord, SimulatedCall, SimulatedCallRecord, SimulatedMedia, SimulatorControl, SimulatorFault } from './http/control-client.js';
export { expect };

/** The simulator a test gets: where it listens, its key, and its control API. */
export interface SimulatorFixture extends SimulatorControl {
  /** Its root, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The app's `VOICE_BASE_URL`: `{url}/api`. */
  baseUrl: string;
  /** The SIP WebSocket the page registers with. */
  sipUrl: string;
  /** The key its REST API takes: the app's `VOICE_API_KEY`. */
  apiKey: string;
}

/** The test-scoped fixtures {@link test} adds. */
export interface SimulatorTestFixtures {
  /**
   * The SIP edge the simulator speaks as during the test (`test.use({ edgeProfile: 'asterisk' })`, or with its
   * settings: `{ profile: 'asterisk', sessionExpiresSeconds: 4 }`); the edge it had is put back after the test.
   * Unset, the simulator keeps its own (`simulatorOptions.edgeProfile`, else `kamailio`).
   */
  edgeProfile: SimulatorEdgeProfile | SimulatorEdgeInput | undefined;
  /** Applies `edgeProfile` around every test. */
  simulatorEdge: void;
  /**
   * The network profile the sessions issued during the test get (`test.use({ networkProfile: 'turn-tls' })`):
   * their ICE servers and policy (docs/network.md); a TURN-using one starts the simulator's coturn. `open` is put
   * back after the test. Unset, the simulator keeps its own (`open`).
   */
  networkProfile: NetworkProfile | undefined;
  /** Applies `networkProfile` around every test. */
  simulatorNetwork: void;
}

/** The worker-scoped fixtures {@link test} adds. */
export interface SimulatorWorkerFixtures {
  /** Options for the worker's simulator (`test.use({ simulatorOptions: { noAnswerMs: 2000 } })` in a file's top level). */
  simulatorOptions: SimulatorOptions;
  /** The worker's simulator, started before its first test and stopped after its last. */
  simulator: SimulatorFixture;
}

// Typed with @playwright/test's own names: left to inference, the declaration would name `playwright/test`, a
// package the app may not be able to resolve (pnpm installs only what the app depends on).
/**
 * Playwright's `test` with a `simulator` fixture. One simulator per worker; its calls and sessions carry over
 * from test to test in that worker: `await simulator.reset()` forgets them.
 *
 * @remarks
 * The simulator listens on 127.0.0.1 on a free port with the package's `DEFAULT_API_KEY`, its calls' audio on
 * 127.0.0.1 alone (`mediaAddresses: 'loopback'`, for the browsers of {@link chromiumLaunchOptions} and
 * {@link firefoxLaunchOptions}), unless `simulatorOptions` says otherwise, and closes after the worker's last
 * test, ending its calls and sessions.
 */
export const test: TestType<PlaywrightTestArgs & PlaywrightTestOptions & SimulatorTestFixtures, PlaywrightWorkerArgs & PlaywrightWorkerOptions & SimulatorWorkerFixtures> = base.extend<
  SimulatorTestFixtures,
  SimulatorWorkerFixtures
>({
  edgeProfile: [undefined, { option: true }],
  simulatorEdge: [async ({ simulator, edgeProfile }, use) => withEdge(simulator, edgeProfile, use), { auto: true }],
  networkProfile: [undefined, { option: true }],
  simulatorNetwork: [
    async ({ simulator, networkProfile }, use) => {
      if (networkProfile === undefined) return use();
      await simulator.setNetwork({ profile: networkProfile });
      try {
        await use();
      } finally {
        await simulator.setNetwork({ profile: 'open' });
      }
    },
    { auto: true },
  ],
  simulatorOptions: [{}, { scope: 'worker', option: true }],
  simulator: [
    async ({ simulatorOptions }, use) => {
      // Loopback, as the browsers of chromiumLaunchOptions and firefoxLaunchOptions pair: nothing leaves 127.0.0.1.
      const simulator = await startSimulator({ ...simulatorOptions, port: simulatorOptions.port ?? 0, mediaAddresses: simulatorOptions.mediaAddresses ?? 'loopback' });
      try {
        await use({ url: simulator.url, baseUrl: simulator.baseUrl, sipUrl: simulator.sipUrl, apiKey: simulator.apiKey, ...createSimulatorControl(simulator.url) });
      } finally {
        await simulator.close();
      }
    },
    { scope: 'worker' },
  ],
});
