import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * The one way the tests, the e2e suite and the bench get a program of Debian's that they run (the browsers,
 * `redis-server`, Kamailio): a file of each package is looked for, and whatever is missing is installed with
 * apt-get when running as root; otherwise it stops with one line saying how.
 */

/** A file that proves a Debian package is installed, and that package's name. */
export interface DebianFile {
  path: string;
  pkg: string;
}

/** How to install: `recommends` keeps apt-get's recommended packages too (default: only what is needed). */
export interface DebianInstallOptions {
  recommends?: boolean;
}

const listed = (files: readonly DebianFile[]): string => files.map(({ path }) => path).join(' and ');

/**
 * Installs the packages of `wanted` whose file is missing; `label` starts every line it prints or throws.
 * Throws one line when it is not root, or when apt-get finished and a file is still missing.
 */
export function ensureDebianPackages(label: string, wanted: readonly DebianFile[], options: DebianInstallOptions = {}): void {
  const missing = wanted.filter(({ path }) => !existsSync(path));
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map(({ pkg }) => pkg))];
  if (process.getuid?.() !== 0) {
    throw new Error(`${label}: ${listed(missing)} missing; install with: sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}`);
  }
  console.log(`${label}: installing Debian ${packages.join(' and ')} (apt-get)…`);
  // No service start (RUNLEVEL=1): the tests run their own servers on free loopback ports.
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', RUNLEVEL: '1' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...(options.recommends ? [] : ['--no-install-recommends']), ...packages], { stdio: 'inherit', env });
  const still = missing.filter(({ path }) => !existsSync(path));
  if (still.length > 0) throw new Error(`${label}: apt-get finished but ${listed(still)} still missing`);
}

/**
 * Runs `ensure` when the module at `moduleUrl` is the script Node was started with (`tsx scripts/…`): prints
 * what it answers, if anything, or its error in one line and exits 1.
 */
export function runWhenMain(moduleUrl: string, ensure: () => string | void): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  try {
    const answer = ensure();
    if (answer !== undefined) console.log(answer);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
