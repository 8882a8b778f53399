import { describe, expect, it } from 'vitest';
import { createMemoryRateStore, type RateStore } from '../../../server-proxy/access/rate-store.js';
import { createRedisRateStore } from '../../../server-proxy/redis/redis-rate-store.js';
import { freePort, startRedis, useRedis } from '../support/redis-server.js';

/**
 * Both stores (rate-limiter-flexible's memory and Redis limiters) keep the same contract: a fixed window per
 * key that counts every hit once, atomically, and tells how long until it resets. The Redis one runs against a
 * real redis-server started here.
 */

const { redis, onStop } = useRedis();

async function redisStore(prefix: string): Promise<RateStore> {
  const store = await createRedisRateStore({ url: redis().url, prefix });
  onStop(async () => store.close?.());
  return store;
}

/** Each store, and the shortest window it keeps: Redis counts whole seconds. */
const makers: Array<[string, (prefix: string) => Promise<RateStore>, number]> = [
  ['memory', async () => createMemoryRateStore(), 80],
  ['redis', redisStore, 1000],
];

describe.each(makers)('the %s rate store', (_name, make, shortWindowMs) => {
  it('counts hits per key within a window and says when it resets', async () => {
    const store = await make(`t1:${Math.random()}:`);
    expect(await store.hit('alice', 60_000)).toMatchObject({ count: 1 });
    expect((await store.hit('alice', 60_000)).count).toBe(2);
    const third = await store.hit('alice', 60_000);
    expect(third.count).toBe(3);
    expect(third.resetInMs).toBeGreaterThan(50_000);
    expect(third.resetInMs).toBeLessThanOrEqual(60_000);
    expect((await store.hit('bob', 60_000)).count).toBe(1);
  });

  it('starts a new window once the old one has passed', async () => {
    const store = await make(`t2:${Math.random()}:`);
    await store.hit('alice', shortWindowMs);
    expect((await store.hit('alice', shortWindowMs)).count).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, shortWindowMs + 100));
    expect((await store.hit('alice', shortWindowMs)).count).toBe(1);
  });

  it('counts concurrent hits exactly once each', async () => {
    const store = await make(`t3:${Math.random()}:`);
    const counts = await Promise.all(Array.from({ length: 50 }, () => store.hit('alice', 60_000).then((w) => w.count)));
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });
});

describe('the redis rate store shared by two proxy replicas', () => {
  it('gives both replicas one count per user', async () => {
    const prefix = `shared:${Math.random()}:`;
    const first = await redisStore(prefix);
    const second = await redisStore(prefix);
    await first.hit('alice', 60_000);
    await second.hit('alice', 60_000);
    expect((await first.hit('alice', 60_000)).count).toBe(3);
  });

  it('refuses to start, at once and without the URL’s password, when no server listens', async () => {
    const port = await freePort();
    const failure = await createRedisRateStore({ url: `redis://user:s3cret@127.0.0.1:${port}` }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain(`cannot reach Redis at 127.0.0.1:${port}`);
    // "At once": it gave up on the first refused connection, not after retrying or a connect time limit.
    expect((failure as Error).message).toContain('ECONNREFUSED');
    expect((failure as Error).message).not.toContain('s3cret');
  });

  it('fails a hit at once, instead of waiting, when the server is gone', async () => {
    const own = await startRedis();
    const store = await createRedisRateStore({ url: own.url, prefix: 'gone:' });
    onStop(async () => store.close?.());
    await store.hit('alice', 60_000);
    await own.stop();
    // "At once": the client refuses a command while offline (or fails it on the closed socket) rather than
    // queueing it until Redis is back.
    await expect(store.hit('alice', 60_000)).rejects.toThrow(/offline|closed/i);
  });
});
