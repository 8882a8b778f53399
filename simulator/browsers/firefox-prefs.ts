/**
 * The Firefox preferences for a test browser that calls the simulator: fake media, and nothing beyond loopback.
 * Playwright runs a stock Firefox through its `moz-firefox` channel (WebDriver BiDi) and writes these into the
 * profile it makes, beside its own (which already turn off updates, telemetry and first-run pages).
 *
 * @remarks
 * Each preference closes a path that would otherwise leave the machine or need a person at the keyboard:
 *
 * - `media.navigator.streams.fake`: a fake microphone (a tone) instead of a real device.
 * - `media.navigator.permission.disabled`: the microphone is granted without the permission prompt.
 * - `media.navigator.permission.fake`: the fake device counts as capturing. Without it Firefox gathers only
 *   default-route addresses, offers no 127.0.0.1 candidate, and ICE fails after signalling succeeds.
 * - `media.peerconnection.ice.loopback`, `…ice.obfuscate_host_addresses` off, `…ice.default_address_only` off:
 *   a real 127.0.0.1 host candidate that ICE can pair with the simulator's (no mDNS name, so no multicast).
 * - `media.autoplay.default` 0: the call's audio plays without a click.
 * - `media.cubeb.force_mock_context`: an audio output that needs no sound device. Test machines have none, and
 *   without one Firefox never starts an AudioContext (it stays `suspended`), so nothing measured through Web Audio,
 *   such as the microphone level where Firefox's statistics lack it, would ever be seen.
 * - `network.proxy.*`: every request goes to a dead proxy on 127.0.0.1:9 except loopback's, so nothing the
 *   browser asks of itself reaches the internet; `network.trr.mode` 5 turns DNS over HTTPS off.
 * - `network.captive-portal-service.enabled`, `network.connectivity-service.enabled`, Remote Settings, Normandy
 *   and Nimbus off: Firefox's own background requests.
 */
export const firefoxUserPrefs: Readonly<Record<string, string | number | boolean>> = {
  'media.navigator.streams.fake': true,
  'media.navigator.permission.disabled': true,
  'media.navigator.permission.fake': true,
  'media.peerconnection.ice.loopback': true,
  'media.peerconnection.ice.obfuscate_host_addresses': false,
  'media.peerconnection.ice.default_address_only': false,
  'media.autoplay.default': 0,
  'media.cubeb.force_mock_context': true,
  'network.proxy.type': 1,
  'network.proxy.http': '127.0.0.1',
  'network.proxy.http_port': 9,
  'network.proxy.ssl': '127.0.0.1',
  'network.proxy.ssl_port': 9,
  'network.proxy.no_proxies_on': '127.0.0.1,localhost',
  'network.proxy.allow_hijacking_localhost': false,
  'network.trr.mode': 5,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'services.settings.server': 'http://127.0.0.1:9/v1',
  'app.normandy.enabled': false,
  'messaging-system.rsexperimentloader.enabled': false,
};

/** Launch options for Playwright's `launch()` or `use.launchOptions`: the `moz-firefox` channel, its binary and {@link firefoxUserPrefs}. */
export interface FirefoxLaunchOptions {
  /** `moz-firefox`: Playwright drives the stock Firefox over WebDriver BiDi. */
  channel: 'moz-firefox';
  /** {@link firefoxUserPrefs}, as an object of its own to add preferences to. */
  firefoxUserPrefs: Record<string, string | number | boolean>;
  /** Present only when given or set in `FIREFOX_PATH`; otherwise Playwright looks for Firefox where it is installed. */
  executablePath?: string;
}

/**
 * Launch options for a Firefox that calls the simulator: {@link firefoxUserPrefs} on Playwright's `moz-firefox`
 * channel, with the browser at `executablePath`, else at the `FIREFOX_PATH` environment variable, else where
 * Playwright finds Firefox.
 *
 * @remarks
 * Firefox ESR 153 lacks the BiDi command `emulation.setMediaFeaturesOverride` that Playwright 1.65 sends for
 * every new context; the repository's docs/testing.md says how its own tests get past that.
 *
 * @example
 * ```ts
 * // the Playwright config
 * import { defineConfig } from '@playwright/test';
 * import { chromiumLaunchOptions, firefoxLaunchOptions } from '@voice-browser/simulator/playwright';
 *
 * export default defineConfig({
 *   projects: [
 *     { name: 'chromium', use: { browserName: 'chromium', launchOptions: chromiumLaunchOptions() } },
 *     { name: 'firefox', use: { browserName: 'firefox', launchOptions: firefoxLaunchOptions() } },
 *   ],
 * });
 * ```
 */
export function firefoxLaunchOptions(options: { executablePath?: string } = {}): FirefoxLaunchOptions {
  const executablePath = options.executablePath ?? process.env.FIREFOX_PATH;
  const launch: FirefoxLaunchOptions = { channel: 'moz-firefox', firefoxUserPrefs: { ...firefoxUserPrefs } };
  return executablePath ? { ...launch, executablePath } : launch;
}
