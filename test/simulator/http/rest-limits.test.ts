import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_QUOTA, RateLimiter } from '../../../simulator/http/rate-limit.js';
import { expectAnswer, KEYS, RestWorld, type ApiResponse } from './rest-support.js';

/** Conformance of the simulated service to spec 8: the per-key quota and the per-account call ceiling. */

let world: RestWorld;
afterEach(() => world.close());

const agents = { path: '/agents' };

/** Sends `count` reads with `key` and checks each got through. */
async function spend(count: number, key: string = KEYS.main): Promise<void> {
  for (let i = 0; i < count; i += 1) expect((await world.send({ ...agents, key })).status).toBe(200);
}

const rateHeaders = (response: ApiResponse) => ({
  limit: response.headers.get('x-ratelimit-limit'),
  remaining: response.headers.get('x-ratelimit-remaining'),
  reset: response.headers.get('x-ratelimit-reset'),
});

describe('spec 8: the per-key quota', () => {
  it('8: every response carries X-RateLimit-Limit, -Remaining and -Reset, counting down per key', async () => {
    world = new RestWorld();
    const first = await world.send(agents);
    expectAnswer(first, { status: 200, headers: { 'retry-after': null } });
    expect(rateHeaders(first)).toEqual({ limit: '100', remaining: '99', reset: '60' });
    await world.clock.advance(15_000);
    expect(rateHeaders(await world.send(agents))).toEqual({ limit: '100', remaining: '98', reset: '45' });
  });

  it('8: the 101st request of a minute is 429 rate_limited with Retry-After, and passes once it has elapsed', async () => {
    world = new RestWorld();
    await spend(60);
    await world.clock.advance(20_000);
    await spend(40);
    const refused = await world.send(agents);
    expectAnswer(refused, { status: 429, code: 'rate_limited', headers: { 'retry-after': '40', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '40' } });
    await world.clock.advance(39_000);
    expectAnswer(await world.send(agents), { status: 429, code: 'rate_limited', headers: { 'retry-after': '1' } });
    await world.clock.advance(1000);
    expectAnswer(await world.send(agents), { status: 200, headers: { 'x-ratelimit-remaining': '99' } });
  });

  it('8: the hourly quota refuses once used up, with Retry-After until the hour is over', async () => {
    world = new RestWorld();
    // KEYS.lowQuota: 3 a minute, 5 an hour.
    await spend(3, KEYS.lowQuota);
    expectAnswer(await world.send({ ...agents, key: KEYS.lowQuota }), { status: 429, code: 'rate_limited', headers: { 'retry-after': '60' } });
    await world.clock.advance(60_000);
    await spend(1, KEYS.lowQuota);
    const last = await world.send({ ...agents, key: KEYS.lowQuota });
    expectAnswer(last, { status: 200, headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3540' } });
    expectAnswer(await world.send({ ...agents, key: KEYS.lowQuota }), { status: 429, code: 'rate_limited', headers: { 'retry-after': '3540', 'x-ratelimit-limit': '5' } });
  });

  it('8: quotas are per key: another key of the same account is not affected', async () => {
    world = new RestWorld();
    await spend(3, KEYS.lowQuota);
    expectAnswer(await world.send({ ...agents, key: KEYS.lowQuota }), { status: 429, code: 'rate_limited', headers: { 'retry-after': /^\d+$/ } });
    expectAnswer(await world.send(agents), { status: 200, headers: { 'x-ratelimit-remaining': '99' } });
  });

  it('8: the quota counts every operation, writes and refusals included', async () => {
    world = new RestWorld();
    await world.send({ ...agents, key: KEYS.lowQuota, body: { name: 'a', type: 'webrtc', externalSubject: 'a' } });
    await world.send({ key: KEYS.lowQuota, path: '/browser-calls/bc_missing' });
    const third = await world.send({ ...agents, key: KEYS.lowQuota });
    expectAnswer(third, { status: 200, headers: { 'x-ratelimit-remaining': '0' } });
  });

  it('8: a caller without a valid key is counted by address, and its 401s carry the headers', async () => {
    world = new RestWorld({ quota: { perMinute: 2 } });
    world.address = '198.51.100.1';
    expectAnswer(await world.send({ ...agents, key: KEYS.unknown }), { status: 401, code: 'invalid_credentials', headers: { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' } });
    expectAnswer(await world.send({ ...agents, key: null }), { status: 401, code: 'invalid_credentials', headers: { 'x-ratelimit-remaining': '0' } });
    expectAnswer(await world.send({ ...agents, key: KEYS.paused }), { status: 429, code: 'rate_limited', headers: { 'retry-after': '60' } });
    world.address = '198.51.100.2';
    expectAnswer(await world.send({ ...agents, key: KEYS.unknown }), { status: 401, code: 'invalid_credentials', headers: { 'x-ratelimit-remaining': '1' } });
    // The valid key of the first address has its own count.
    world.address = '198.51.100.1';
    expectAnswer(await world.send(agents), { status: 200, headers: { 'x-ratelimit-remaining': '1' } });
  });

  it.each([
    ['a suspended account', { suspended: true }, 'account_suspended'],
    ['an account without voice', { voiceEntitled: false }, 'voice_not_entitled'],
  ] as const)('5.4, 5.5: %s is refused 403 on every request past its quota, never 429, and its 403s carry no Retry-After', async (_, settings, code) => {
    world = new RestWorld();
    world.registry.addAccount({ id: 'acct_refused', ...settings });
    const { value } = world.registry.addKey({ accountId: 'acct_refused', quota: { perMinute: 2 } });
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 5; i += 1) answers.push(await world.send({ ...agents, key: value }));
    for (const answer of answers) expectAnswer(answer, { status: 403, code, headers: { 'x-ratelimit-limit': '2', 'retry-after': null } });
    // The refusals counted: the headers say what is left, truthfully.
    expect(answers.map((answer) => answer.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0', '0', '0', '0']);
    // Reinstated, the key meets the quota those requests used.
    world.registry.updateAccount('acct_refused', { suspended: false, voiceEntitled: true });
    expectAnswer(await world.send({ ...agents, key: value }), { status: 429, code: 'rate_limited', headers: { 'retry-after': '60' } });
  });

  it('8: the default quota is configurable, and a key may set its own', async () => {
    world = new RestWorld({ quota: { perMinute: 2, perHour: 50 } });
    await spend(2);
    expectAnswer(await world.send(agents), { status: 429, code: 'rate_limited', headers: { 'x-ratelimit-limit': '2' } });
    // KEYS.lowQuota's own 3 a minute wins over the default.
    await spend(3, KEYS.lowQuota);
  });

  it('8: the defaults are 100 a minute and 10,000 an hour', () => {
    const limiter = new RateLimiter(() => 0);
    expect(DEFAULT_QUOTA).toEqual({ perMinute: 100, perHour: 10_000 });
    for (let i = 0; i < 100; i += 1) expect(limiter.take('minute', DEFAULT_QUOTA).allowed).toBe(true);
    expect(limiter.take('minute', DEFAULT_QUOTA)).toMatchObject({ allowed: false, limit: 100, remaining: 0, retryAfterSeconds: 60 });
    // The hour counts on its own: with the minute lifted, the 10,001st request of the hour is refused.
    const lifted = { ...DEFAULT_QUOTA, perMinute: 1_000_000 };
    for (let i = 0; i < 10_000; i += 1) expect(limiter.take('hour', lifted).allowed).toBe(true);
    expect(limiter.take('hour', lifted)).toMatchObject({ allowed: false, limit: 10_000, remaining: 0, retryAfterSeconds: 3600 });
  });
});

describe('spec 8: the per-account active-call ceiling', () => {
  /** acct_main allows 2 active calls; KEYS.main and KEYS.sibling are both of it. */
  async function fillCeiling(): Promise<string[]> {
    const ids: string[] = [];
    for (const subject of ['alice', 'bob']) {
      const response = await world.startCall(await world.openSession(subject), `call-${subject}`);
      expectAnswer(response, { status: 202 });
      ids.push((response.json['call'] as { id: string }).id);
    }
    return ids;
  }

  it('8: a call beyond the account\'s ceiling is 429 concurrency_limit, whichever key of the account asks', async () => {
    world = new RestWorld();
    await fillCeiling();
    expectAnswer(await world.startCall(await world.openSession('carol'), 'call-carol'), { status: 429, code: 'concurrency_limit' });
    expectAnswer(await world.startCall(await world.openSession('dave', KEYS.sibling), 'call-dave', KEYS.sibling), { status: 429, code: 'concurrency_limit' });
    // Another account is not affected.
    expectAnswer(await world.startCall(await world.openSession('rita', KEYS.recording), 'call-rita', KEYS.recording), { status: 202 });
  });

  it('8: a call that ended frees its place; the refused key is reusable (3.4)', async () => {
    world = new RestWorld();
    const [first] = await fillCeiling();
    const carol = await world.openSession('carol');
    expectAnswer(await world.startCall(carol, 'call-carol'), { status: 429, code: 'concurrency_limit' });
    await world.send({ path: `/browser-calls/${first}/hangup`, body: {} });
    await vi.waitFor(async () => expect((await world.send({ path: `/browser-calls/${first}` })).json['call']).toMatchObject({ busy: false }), { timeout: 30_000 });
    expectAnswer(await world.startCall(carol, 'call-carol'), { status: 202 });
  });

  it('8, 3.4: a replay of an admitted call at the ceiling is the replay, not a refusal', async () => {
    world = new RestWorld();
    await fillCeiling();
    const alice = (await world.send({ path: '/browser-sessions?externalSubject=alice' })).json['session'] as { id: string };
    expectAnswer(await world.startCall(alice.id, 'call-alice'), { status: 202, headers: { 'idempotent-replayed': 'true' } });
  });

  it('8: two admissions at once cannot both take the last place', async () => {
    world = new RestWorld();
    expectAnswer(await world.startCall(await world.openSession('alice'), 'call-alice'), { status: 202 });
    const [bob, carol] = [await world.openSession('bob'), await world.openSession('carol')];
    const answers = await Promise.all([world.startCall(bob, 'call-bob'), world.startCall(carol, 'call-carol')]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 429]);
    expectAnswer(answers.find((a) => a.status === 429) ?? answers[0], { status: 429, code: 'concurrency_limit' });
  });
});
