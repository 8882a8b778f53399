import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../contract/http-error.js';
import { createMemoryBudgetStore, type BudgetStore } from '../../../server-proxy/budget/budget-store.js';
import { callPlaces, callsServed, createKeyBudget, LEASE_MS, readQuota } from '../../../server-proxy/budget/key-budget.js';

/** The key's budget alone, on a clock the test moves. */

/** The headers the service sends with `remaining` left of a `limit`-a-minute window resetting in `reset` s. */
const quotaHeaders = (limit: number, remaining: number, reset = 60) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(reset),
});

function budgetAt(start = 1_000_000, store: BudgetStore = createMemoryBudgetStore()) {
  let now = start;
  const lines: string[] = [];
  const budget = createKeyBudget({ store, now: () => now, log: (line) => lines.push(line) });
  return { budget, lines, advance: (ms: number) => (now += ms), settle: () => new Promise((resolve) => setTimeout(resolve, 0)) };
}

/** What a refused promise rejected with, as status, code and Retry-After. */
async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return { status: error.status, code: error.code, retryAfter: error.headers['Retry-After'], message: error.message };
}

describe('reading the quota', () => {
  it("reads the service's X-RateLimit headers, a window of a minute or less as the minute's", () => {
    expect(readQuota(200, quotaHeaders(100, 97, 42), 1000, null)).toEqual({ limit: 100, remaining: 97, resetAt: 43_000, at: 1000, perMinute: 100 });
    // The hour's window (closest to running out) says nothing of the minute's: the last known one stays.
    const minute = readQuota(200, quotaHeaders(100, 97), 0, null);
    expect(readQuota(200, quotaHeaders(10_000, 40, 1800), 1000, minute)).toMatchObject({ limit: 10_000, remaining: 40, perMinute: 100 });
  });

  it("takes a 429 as nothing left until its Retry-After", () => {
    expect(readQuota(429, { ...quotaHeaders(100, 0, 20), 'retry-after': '30' }, 0, null)).toMatchObject({ remaining: 0, resetAt: 30_000 });
  });

  it('is null without the headers, or with one that is not a number', () => {
    expect(readQuota(200, {}, 0, null)).toBeNull();
    expect(readQuota(200, { ...quotaHeaders(100, 5), 'x-ratelimit-remaining': 'lots' }, 0, null)).toBeNull();
  });

  it('serves one call at once on the default 100 a minute, nineteen on 1,200', () => {
    expect(callsServed(100)).toBe(1);
    expect(callsServed(1200)).toBe(19);
    // Late in a window, what is left must carry every call's reads until it resets.
    expect(callPlaces({ reading: { limit: 1200, remaining: 200, resetAt: 30_000, at: 0, perMinute: 1200 }, now: 0 })).toBe(6);
    expect(callPlaces({ reading: null, now: 0 })).toBeNull();
  });
});

describe('the key budget', () => {
  it('admits calls up to what the quota serves, then refuses 429 concurrency_limit with Retry-After and the figures', async () => {
    const { budget, lines } = budgetAt();
    budget.observe(200, quotaHeaders(130, 129));
    expect(lines).toEqual(["voice proxy: the voice key's quota is 130 requests a minute; it serves 2 calls at once (each call is read about once a second)"]);
    await budget.admitCall('k1');
    await budget.admitCall('k2');
    const refused = await refusal(budget.admitCall('k3'));
    expect(refused).toMatchObject({ status: 429, code: 'concurrency_limit', retryAfter: '10' });
    expect(refused.message).toContain("The voice key's quota (130 requests a minute) serves 2 calls at once, and 2 are in progress");
  });

  it('keeps a place for each call its reads show busy, and frees it at the read that shows it over', async () => {
    const { budget, advance, settle } = budgetAt();
    budget.observe(200, quotaHeaders(100, 99));
    const ticket = await budget.admitCall('k4');
    budget.callAnswered(ticket, { id: 'bc_1', state: 'waiting_agent', busy: true });
    await settle();
    expect((await budget.snapshot()).callsInProgress).toBe(1);
    // Read every second for longer than a lease: still held.
    for (let i = 0; i < 20; i++) {
      advance(1000);
      budget.callSeen({ id: 'bc_1', state: 'connected', busy: true });
    }
    await settle();
    expect(await refusal(budget.admitCall('k5'))).toMatchObject({ code: 'concurrency_limit' });
    budget.callSeen({ id: 'bc_1', state: 'ended', busy: false });
    await settle();
    await expect(budget.admitCall('k6')).resolves.toBeDefined();
  });

  it('frees the place of a call nobody reads any more (its page closed) once its lease lapses', async () => {
    const { budget, advance, settle } = budgetAt();
    budget.observe(200, quotaHeaders(100, 99));
    budget.callAnswered(await budget.admitCall('k7'), { id: 'bc_1', busy: true });
    await settle();
    await expect(budget.admitCall('k8')).rejects.toMatchObject({ code: 'concurrency_limit' });
    advance(LEASE_MS + 1);
    await expect(budget.admitCall('k9')).resolves.toBeDefined();
  });

  it('admits again an attempt that holds its place (a retry after a lost answer), never a second call beside it', async () => {
    const { budget } = budgetAt();
    budget.observe(200, quotaHeaders(100, 99));
    await budget.admitCall('lost');
    await expect(budget.admitCall('lost')).resolves.toEqual({ member: 'attempt:lost' });
    await expect(budget.admitCall('another')).rejects.toMatchObject({ code: 'concurrency_limit' });
  });

  it("frees a refused call's place at once", async () => {
    const { budget, settle } = budgetAt();
    budget.observe(200, quotaHeaders(100, 99));
    budget.callAnswered(await budget.admitCall('k10'), undefined);
    await settle();
    await expect(budget.admitCall('k11')).resolves.toBeDefined();
  });

  it('refuses a call the rest of the window cannot read until it resets, with Retry-After the reset', async () => {
    const { budget } = budgetAt();
    // 1,200 a minute serves 19, but 40 requests left with 30 s to go carry one call.
    budget.observe(200, quotaHeaders(1200, 40, 30));
    await budget.admitCall('k12');
    expect(await refusal(budget.admitCall('k13'))).toMatchObject({ code: 'concurrency_limit', retryAfter: '30' });
  });

  it('refuses a new session or a current-session read only when it would eat the reads kept for calls', async () => {
    const { budget, settle } = budgetAt();
    budget.observe(200, quotaHeaders(100, 99));
    await expect(budget.admitSession()).resolves.toBeUndefined();
    budget.callAnswered(await budget.admitCall('k14'), { id: 'bc_1', busy: true });
    await settle();
    // 20 left, 30 s to go: the call's 30 reads need them all.
    budget.observe(200, quotaHeaders(100, 20, 30));
    expect(await refusal(budget.admitSession())).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: '30' });
    expect(await refusal(budget.admitRecoveryRead())).toMatchObject({ code: 'rate_limited' });
    budget.observe(200, quotaHeaders(100, 60, 30));
    await expect(budget.admitSession()).resolves.toBeUndefined();
  });

  it('admits everything and says so once when the service sends no rate-limit headers', async () => {
    const { budget, lines } = budgetAt();
    budget.observe(200, {});
    budget.observe(200, {});
    for (let i = 0; i < 5; i++) await budget.admitCall('k15');
    expect(lines).toEqual(['voice proxy: the voice service sent no X-RateLimit headers; the key budget is off, calls are admitted as the service allows']);
  });

  it('refuses new calls while its store fails, and lets reads and sessions go on, saying so once', async () => {
    const broken: BudgetStore = { ...createMemoryBudgetStore(), hold: () => Promise.reject(new Error('connection lost')), count: () => Promise.reject(new Error('connection lost')) };
    const { budget, lines, settle } = budgetAt(0, broken);
    budget.observe(200, quotaHeaders(100, 99));
    expect(await refusal(budget.admitCall('k16'))).toMatchObject({ status: 429, code: 'concurrency_limit', retryAfter: '5' });
    await expect(budget.admitSession()).resolves.toBeUndefined();
    await expect(budget.admitRecoveryRead()).resolves.toBeUndefined();
    budget.callSeen({ id: 'bc_1', busy: true });
    await settle();
    expect(lines.filter((line) => line.includes('budget store failed'))).toHaveLength(1);
  });
});
