/**
 * The Chromium flags for a test browser that calls the simulator: fake media, and nothing beyond loopback.
 *
 * @remarks
 * Each flag closes a path that would otherwise leave the machine or need a person at the keyboard:
 *
 * - `--no-sandbox`: the sandbox needs user namespaces, which containers and root often lack.
 * - `--disable-gpu`: test machines have no GPU; software rendering starts reliably.
 * - `--disable-quic`: no QUIC (UDP) to Google's hosts.
 * - `--no-first-run`: no first-run page or dialog.
 * - `--disable-background-networking`, `--disable-component-update`, `--disable-sync`: none of Chromium's
 *   own requests (updates, components, sign-in and sync).
 * - `--use-fake-ui-for-media-stream`: the microphone is granted without the permission prompt.
 * - `--use-fake-device-for-media-stream`: a fake microphone (a beep) and camera instead of real devices.
 * - `--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1`: no DNS for any host but loopback (Chromium
 *   otherwise looks up Google hosts at start); without the EXCLUDE a page on 127.0.0.1 would not load.
 * - `--disable-features=WebRtcHideLocalIpsWithMdns`: real host candidates instead of mDNS names, so no
 *   multicast leaves the machine.
 * - `--allow-loopback-in-peer-connection`: lets ICE pair 127.0.0.1 with the simulator's 127.0.0.1 candidate.
 * - `--autoplay-policy=no-user-gesture-required`: the call's audio plays without a click; leave it out to
 *   test a page's "resume audio" path.
 */
export const chromiumArgs: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--allow-loopback-in-peer-connection',
  '--autoplay-policy=no-user-gesture-required',
];

/** Launch options for Playwright's `launch()` or `use.launchOptions`: {@link chromiumArgs} and the browser to run. */
export interface ChromiumLaunchOptions {
  /** {@link chromiumArgs}, as an array of its own to add flags to. */
  args: string[];
  /** Present only when given or set in `CHROMIUM_PATH`; otherwise Playwright runs its own Chromium. */
  executablePath?: string;
}

/**
 * Launch options for a Chromium that calls the simulator: {@link chromiumArgs}, and the browser at
 * `executablePath`, else at the `CHROMIUM_PATH` environment variable, else Playwright's own.
 *
 * @example
 * ```ts
 * // the Playwright config
 * import { defineConfig } from '@playwright/test';
 * import { chromiumLaunchOptions } from '@voice-browser/simulator/playwright';
 *
 * export default defineConfig({ use: { launchOptions: chromiumLaunchOptions() } });
 * ```
 */
export function chromiumLaunchOptions(options: { executablePath?: string } = {}): ChromiumLaunchOptions {
  const executablePath = options.executablePath ?? process.env.CHROMIUM_PATH;
  return executablePath ? { args: [...chromiumArgs], executablePath } : { args: [...chromiumArgs] };
}
