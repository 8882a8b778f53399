/**
 * The Chromium flags for a test browser that calls the simulator: fake media, and nothing beyond loopback.
 * Each flag closes a path that would otherwise leave the machine or need a person at the keyboard.
 */
export const chromiumArgs: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // A fake microphone (a beep) and camera, granted without the permission prompt.
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  // No DNS for anything but loopback: Chromium otherwise looks up Google hosts at start.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  // Real host candidates instead of mDNS names, so no multicast leaves the machine.
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  // Lets ICE pair 127.0.0.1 with the simulator's 127.0.0.1 candidate.
  '--allow-loopback-in-peer-connection',
  // The call's audio plays without a click; leave it out to test the page's Resume audio path.
  '--autoplay-policy=no-user-gesture-required',
];

/** Launch options for Playwright's `launch()` or `use.launchOptions`: {@link chromiumArgs} and the browser to run. */
export interface ChromiumLaunchOptions {
  args: string[];
  /** Present only when given or set in `CHROMIUM_PATH`; otherwise Playwright runs its own Chromium. */
  executablePath?: string;
}

/**
 * Launch options for a Chromium that calls the simulator: {@link chromiumArgs}, and the browser at
 * `executablePath`, else at the `CHROMIUM_PATH` environment variable, else Playwright's own.
 */
export function chromiumLaunchOptions(options: { executablePath?: string } = {}): ChromiumLaunchOptions {
  const executablePath = options.executablePath ?? process.env.CHROMIUM_PATH;
  return executablePath ? { args: [...chromiumArgs], executablePath } : { args: [...chromiumArgs] };
}
