import { ensureDebianPackages, runWhenMain } from './ensure-debian-packages.js';

/**
 * The proxy's Redis rate store is tested against a real `redis-server` (Debian package `redis-server`),
 * installed when missing as the browsers and Kamailio are.
 */
export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

/** Returns the path of `redis-server`, installing it first if needed; throws one line when it cannot. */
export function ensureRedisServer(): string {
  ensureDebianPackages('tests', [{ path: REDIS_SERVER, pkg: 'redis-server' }]);
  return REDIS_SERVER;
}

runWhenMain(import.meta.url, ensureRedisServer);
