import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH, FIREFOX_PATH } from '../e2e/browsers.js';

/**
 * The e2e suite and the bench drive Debian's Chromium and Firefox ESR (Playwright cannot download its own
 * browsers here). Installs whichever is missing when running as root; otherwise stops with one line saying how.
 */
const missing = [
  { path: CHROMIUM_PATH, pkg: 'chromium' },
  { path: FIREFOX_PATH, pkg: 'firefox-esr' },
].filter(({ path }) => !existsSync(path));

if (missing.length > 0) {
  const packages = missing.map(({ pkg }) => pkg);
  if (process.getuid?.() !== 0) {
    console.error(`e2e: ${missing.map(({ path }) => path).join(' and ')} missing; install with: sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}`);
    process.exit(1);
  }
  console.log(`e2e: installing Debian ${packages.join(' and ')} (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
  const still = missing.filter(({ path }) => !existsSync(path));
  if (still.length > 0) {
    console.error(`e2e: apt-get finished but ${still.map(({ path }) => path).join(' and ')} still missing`);
    process.exit(1);
  }
}
