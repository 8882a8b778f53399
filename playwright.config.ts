import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH, CHROMIUM_PATH, FIREFOX_LAUNCH, FIREFOX_PATH } from './e2e/browsers.js';
import type { SipEdge } from './e2e/sip-edge.js';

/**
 * e2e: the demo in real Chromium and real Firefox ESR with fake media, against the real proxy and simulator.
 * Each project runs one test at a time, and two run at once, each worker with an app of its own (fixtures.ts), so
 * no browser meets another's callers, quotas or key changes. Tests are handed out in the order the projects are
 * listed: Firefox's, the longest lane, starts at once beside Chromium's, and the shorter projects follow
 * Chromium's on whichever worker is free.
 */
export default defineConfig<object, { sipEdge: SipEdge }>({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    permissions: ['microphone'],
    trace: 'retain-on-failure',
  },
  projects: [
    { name: 'chromium', workers: 1, testIgnore: ['**/background-tab.spec.ts', '**/stock-browser.spec.ts'], use: { browserName: 'chromium', launchOptions: CHROMIUM_LAUNCH } },
    {
      name: 'firefox',
      workers: 1,
      use: { browserName: 'firefox', launchOptions: FIREFOX_LAUNCH },
      testIgnore: [
        // Turns back on Chromium's back/forward cache, which Playwright's own switch turns off.
        '**/bfcache.spec.ts',
        '**/background-tab.spec.ts',
        '**/stock-browser.spec.ts',
        // Firefox's media toward the simulator's werift does not come back after a DTLS handshake a blackhole held back.
        '**/media-path-recovers.spec.ts',
        // Chromium only: the edges' SIP does not depend on the engine, and the Firefox lane is the suite's long pole.
        '**/edge-profiles.spec.ts',
        // Not yet green in Firefox ESR: its TURN/TLS gathers no relay candidate with coturn's certificate in its profile, and a TURN/TCP call failed.
        '**/turn.spec.ts',
      ],
    },
    // Chromium's once-a-minute timers and its Page Lifecycle freeze; Firefox has neither (docs/browsers.md).
    { name: 'background', workers: 1, testMatch: '**/background-tab.spec.ts', use: { browserName: 'chromium', launchOptions: CHROMIUM_LAUNCH } },
    // The core specs behind a real SIP edge, Debian's Kamailio (e2e/sip-edge.ts); Chromium only: the edge's SIP does not
    // depend on the engine, and the Firefox lane has no room left in the e2e time budget.
    {
      name: 'kamailio',
      workers: 1,
      testMatch: ['**/call.spec.ts', '**/dtmf.spec.ts', '**/mute.spec.ts', '**/remote-hangup.spec.ts', '**/reconnect.spec.ts', '**/media-blackhole.spec.ts', '**/offers.spec.ts'],
      use: { browserName: 'chromium', launchOptions: CHROMIUM_LAUNCH, sipEdge: 'kamailio' },
    },
    // A person's own browsers: a fake microphone and nothing else, in the run's network namespace (docs/testing.md).
    {
      name: 'stock-chromium',
      workers: 1,
      testMatch: '**/stock-browser.spec.ts',
      // Only the fake device and its prompt's answer: no loopback switch, mDNS hiding left on. (Playwright adds
      // its automation switches, none of them about WebRTC's addresses.)
      use: { browserName: 'chromium', permissions: [], launchOptions: { executablePath: CHROMIUM_PATH, args: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'] } },
    },
    {
      name: 'stock-firefox',
      workers: 1,
      testMatch: '**/stock-browser.spec.ts',
      // Only the fake device and its prompt's answer: no loopback, obfuscation or default-address preferences.
      use: {
        browserName: 'firefox',
        permissions: [],
        launchOptions: { channel: 'moz-firefox', executablePath: FIREFOX_PATH, firefoxUserPrefs: { 'media.navigator.streams.fake': true, 'media.navigator.permission.disabled': true } },
      },
    },
  ],
});
