import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryRateStore, type RateStore } from '../../../server-proxy/access/rate-store.js';
import { createRedisRateStore } from '../../../server-proxy/redis/redis-rate-store.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { settleOnClock } from '../support/drive-clock.js';
import { createHarness, send, type Harness, type HarnessOptions } from '../support/harness.js';
import { useRedis } from '../support/redis-server.js';

/**
 * Per-user limits below the key's quota: one user who floods the proxy is stopped with `429 rate_limited`
 * and a `Retry-After` before anything reaches the service, while every other user goes on.
 */

let harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  harnesses = [];
});

function setup(options: HarnessOptions): Harness {
  const h = createHarness(options);
  harnesses.push(h);
  return h;
}

const read = (h: Harness, user: string) => send(h, 'GET', '/voice/browser-sessions', { user });

describe('the per-user limit', () => {
  it('answers a user over the minute limit 429 rate_limited with Retry-After, without asking upstream', async () => {
    const h = setup({ rateLimit: { perMinute: 3 } });
    for (let i = 0; i < 3; i += 1) expect((await read(h, 'alice')).status).toBe(200);
    const before = h.seen.length;

    const limited = await read(h, 'alice');

    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ error: expect.any(String), code: 'rate_limited' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(h.seen.length).toBe(before);
  });

  it('never refuses nor counts a hangup or a session end, so a limited user can always stop', async () => {
    const h = setup({ rateLimit: { perMinute: 2 } });
    const created = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });
    expect(created.status).toBe(201);
    const sessionId = (created.json.session as { id: string }).id;
    await read(h, 'alice');
    expect((await read(h, 'alice')).status).toBe(429);
    // A hangup of a call that is not the user's is the proxy's 404, not its 429: the limit let it through.
    expect((await send(h, 'POST', '/voice/browser-calls/bc_unknown/hangup', { user: 'alice', body: {} })).json.code).toBe('not_found');
    expect((await send(h, 'DELETE', `/voice/browser-sessions/${sessionId}`, { user: 'alice', body: {} })).status).toBe(200);
    expect((await read(h, 'alice')).status).toBe(429);
  });

  it('keeps other users going while one is limited', async () => {
    const h = setup({ rateLimit: { perMinute: 2 } });
    await read(h, 'alice');
    await read(h, 'alice');
    expect((await read(h, 'alice')).status).toBe(429);
    expect((await read(h, 'bob')).status).toBe(200);
  });

  it('holds an hour limit too, with a Retry-After up to an hour', async () => {
    const h = setup({ rateLimit: { perMinute: 100, perHour: 2 } });
    await read(h, 'alice');
    await read(h, 'alice');
    const limited = await read(h, 'alice');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
  });

  it('is on by default, below the key’s quota of 100 a minute', async () => {
    const h = setup({});
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 1) statuses.push((await read(h, 'alice')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(80);
    expect(statuses.slice(80).every((s) => s === 429)).toBe(true);
  });

  it('counts nobody who is not logged in (they are refused before)', async () => {
    const h = setup({ rateLimit: { perMinute: 1 } });
    for (let i = 0; i < 3; i += 1) expect((await send(h, 'GET', '/voice/browser-sessions')).status).toBe(401);
    expect((await read(h, 'alice')).status).toBe(200);
  });

  it('lets requests through, and logs it, when its store fails or hangs, instead of taking calling down', async () => {
    const lines: string[] = [];
    const broken: RateStore = { hit: () => Promise.reject(new Error('connection lost')) };
    const hanging: RateStore = { hit: () => new Promise(() => undefined) };
    // The hanging store's wait runs on a fake clock, so it ends when the test moves time, not with the machine's load.
    const clock = new FakeClock(Date.parse('2026-01-05T09:00:00Z'));
    const h1 = setup({ rateLimit: { perMinute: 1, store: broken }, log: (line) => lines.push(line) });
    const h2 = setup({ rateLimit: { perMinute: 1, store: hanging, storeTimeoutMs: 50 }, log: (line) => lines.push(line), clock });
    expect((await read(h1, 'alice')).status).toBe(200);
    expect((await read(h1, 'alice')).status).toBe(200);
    const started = clock.now();
    expect((await settleOnClock(clock, read(h2, 'alice'), 50)).status).toBe(200);
    // Each of its two windows (the minute's, the hour's) waited its deadline once, and no longer.
    expect(clock.now() - started).toBe(2 * 50);
    expect(lines.some((line) => line.includes('rate store failed'))).toBe(true);
    expect(lines.some((line) => line.includes('did not answer in time'))).toBe(true);
  });

  it('shares one memory store between two proxies in one process', async () => {
    const store = createMemoryRateStore();
    const a = setup({ rateLimit: { perMinute: 2, store } });
    const b = setup({ rateLimit: { perMinute: 2, store } });
    await read(a, 'alice');
    await read(b, 'alice');
    expect((await read(a, 'alice')).status).toBe(429);
  });
});

describe('two proxy replicas on one Redis', () => {
  const { redis, onStop } = useRedis();

  it('limit a user across both: requests spread over the replicas add up', async () => {
    const prefix = `replicas:${Date.now()}:`;
    const first = await createRedisRateStore({ url: redis().url, prefix });
    const second = await createRedisRateStore({ url: redis().url, prefix });
    onStop(async () => Promise.all([first.close?.(), second.close?.()]));
    const a = setup({ rateLimit: { perMinute: 4, store: first } });
    const b = setup({ rateLimit: { perMinute: 4, store: second } });

    const statuses = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await read(i % 2 === 0 ? a : b, 'alice')).status);

    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect((await read(b, 'bob')).status).toBe(200);
  });
});
