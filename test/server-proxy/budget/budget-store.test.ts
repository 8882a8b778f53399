import { describe, expect, it } from 'vitest';
import { createMemoryBudgetStore, type BudgetStore, type QuotaReading } from '../../../server-proxy/budget/budget-store.js';
import { createRedisBudgetStore } from '../../../server-proxy/redis/redis-budget-store.js';
import { useRedis } from '../support/redis-server.js';

/**
 * Both budget stores keep one contract: the newest quota reading wins, and a lease is held atomically under a
 * maximum, lapsing at its time. The Redis one runs against a real redis-server started here, with two
 * connections standing for two proxy replicas.
 */

const { redis, onStop } = useRedis();

async function redisStore(prefix: string): Promise<BudgetStore> {
  const store = await createRedisBudgetStore({ url: redis().url, prefix });
  onStop(async () => store.close?.());
  return store;
}

/** Two handles on one store: the same memory store twice, or two Redis connections on one prefix. */
const makers: Array<[string, () => Promise<[BudgetStore, BudgetStore]>]> = [
  ['memory', async () => {
    const store = createMemoryBudgetStore();
    return [store, store];
  }],
  ['redis', async () => {
    const prefix = `budget:${Math.random()}:`;
    return [await redisStore(prefix), await redisStore(prefix)];
  }],
];

const reading = (at: number, remaining: number): QuotaReading => ({ limit: 100, remaining, resetAt: at + 60_000, at, perMinute: 100 });

describe.each(makers)('the %s budget store', (_name, make) => {
  it('keeps the newest reading, whichever replica saw it', async () => {
    const [a, b] = await make();
    expect(await a.reading()).toBeNull();
    await a.observe(reading(2000, 50));
    await b.observe(reading(1000, 90));
    expect(await b.reading()).toEqual(reading(2000, 50));
    await b.observe(reading(3000, 40));
    expect(await a.reading()).toEqual(reading(3000, 40));
  });

  it('holds leases under a maximum, lets a holder renew past it, and drops a lease at its time', async () => {
    const [a, b] = await make();
    expect(await a.hold('bc_1', 10_000, 0, 2)).toEqual({ held: true, count: 1 });
    expect(await b.hold('bc_2', 10_000, 0, 2)).toEqual({ held: true, count: 2 });
    expect(await a.hold('bc_3', 10_000, 0, 2)).toEqual({ held: false, count: 2 });
    // A holder renews whatever the maximum; a renewal without one always holds.
    expect(await b.hold('bc_1', 20_000, 1000, 2)).toEqual({ held: true, count: 2 });
    expect(await b.hold('bc_4', 20_000, 1000)).toEqual({ held: true, count: 3 });
    expect(await a.count(1000)).toBe(3);
    // bc_2 lapses at 10 s; a release frees bc_4 at once.
    await a.release('bc_4');
    expect(await b.count(10_000)).toBe(1);
    expect(await a.hold('bc_3', 30_000, 10_000, 2)).toEqual({ held: true, count: 2 });
  });

  it('never lets two replicas racing for the last places take more than the maximum', async () => {
    const [a, b] = await make();
    const tries = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).hold(`attempt:${i}`, 60_000, 0, 5));
    const held = (await Promise.all(tries)).filter((result) => result.held);
    expect(held).toHaveLength(5);
    expect(await a.count(0)).toBe(5);
  });

  it('answers a ping', async () => {
    const [a] = await make();
    await expect(a.ping()).resolves.toBeUndefined();
  });
});
