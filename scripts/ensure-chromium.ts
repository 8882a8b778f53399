import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * The e2e suite drives Debian's Chromium (Playwright cannot download its own browser here). Installs it
 * when missing and running as root; otherwise stops with one line saying how.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

if (!existsSync(CHROMIUM)) {
  if (process.getuid?.() !== 0) {
    console.error(`e2e: Chromium is missing at ${CHROMIUM}; install it with: sudo apt-get update && sudo apt-get install -y chromium`);
    process.exit(1);
  }
  console.log('e2e: installing Debian chromium (apt-get)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  if (!existsSync(CHROMIUM)) {
    console.error(`e2e: apt-get finished but ${CHROMIUM} is still missing`);
    process.exit(1);
  }
}
