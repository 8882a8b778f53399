import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * The proxy's Redis rate store is tested against a real `redis-server` (Debian package `redis-server`).
 * Installs it when missing and running as root, as `ensure-browsers.ts` does for the browsers; otherwise fails
 * with one line saying how.
 */
export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

/** Returns the path of `redis-server`, installing it first if needed; throws one line when it cannot. */
export function ensureRedisServer(): string {
  if (existsSync(REDIS_SERVER)) return REDIS_SERVER;
  if (process.getuid?.() !== 0) {
    throw new Error(`redis-server is missing at ${REDIS_SERVER}; install it with: sudo apt-get update && sudo apt-get install -y redis-server`);
  }
  console.log('tests: installing Debian redis-server (apt-get)…');
  // No service start: the tests run their own server on a free loopback port.
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', RUNLEVEL: '1' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'redis-server'], { stdio: 'inherit', env });
  if (!existsSync(REDIS_SERVER)) throw new Error(`apt-get finished but ${REDIS_SERVER} is still missing`);
  return REDIS_SERVER;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    console.log(ensureRedisServer());
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
