import { afterAll, beforeAll } from 'vitest';
import { startRedis, type RunningRedis } from '../../../scripts/start-redis.js';

/** A real `redis-server` for the tests (scripts/start-redis.ts), started before a file's tests and stopped after. */

export { freePort, startRedis, type RunningRedis } from '../../../scripts/start-redis.js';

/**
 * Starts a private redis-server before the file's (or describe block's) tests and stops it after them,
 * closing whatever was registered with `onStop` first. Returns a getter for the running server.
 */
export function useRedis(): { redis: () => RunningRedis; onStop: (close: () => Promise<unknown>) => void } {
  let running: RunningRedis | undefined;
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    running = await startRedis();
  }, 300_000);
  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    await running?.stop();
  });
  return {
    redis: () => {
      if (!running) throw new Error('redis-server has not started');
      return running;
    },
    onStop: (close) => closers.push(close),
  };
}
