/**
 * How every e2e browser starts: Debian's Chromium, fake media, and nothing beyond loopback
 * (shared/ENVIRONMENT.md: each flag below closes a path that would otherwise leave the machine).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  // No DNS for anything but loopback: Chromium otherwise looks up Google hosts at start.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  // Real host candidates instead of mDNS names, so no multicast leaves the machine.
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  // Lets ICE pair 127.0.0.1 with the simulator's 127.0.0.1 candidate.
  '--allow-loopback-in-peer-connection',
  // Autoplay needs no gesture in the suite; the blocked case is tested on purpose elsewhere.
  '--autoplay-policy=no-user-gesture-required',
];
