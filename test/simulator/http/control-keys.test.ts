/**
 * Keys in the spec's states through the control API (`POST /__sim/keys`, `PATCH /__sim/keys/:key`), against a
 * running simulator over loopback, as a test in another process would use them: each made key is refused by
 * the REST API exactly as spec 3.3 and 5 say, changes apply from the next request, and `POST /__sim/reset`
 * forgets them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyView } from '../../../simulator/http/key-control.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { SIM_TEST_KEY, SimulatorApi } from '../support/sim-api.js';

let sim: RunningSimulator;
let api: SimulatorApi;
beforeAll(async () => {
  sim = await startSimulator({ apiKey: SIM_TEST_KEY, port: 0, mediaAddresses: 'loopback' });
  api = new SimulatorApi(sim);
});
afterAll(() => sim.close());

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

/** A REST request with `key` from 127.0.0.1; a body makes it a POST. */
async function rest(key: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${sim.baseUrl}/v1/voice${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'X-Api-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { code?: string };
  return { status: response.status, code: json.code, retryAfter: response.headers.get('retry-after') };
}

const read = (key: string) => rest(key, '/agents');
const write = (key: string, subject: string) => rest(key, '/agents', { name: subject, type: 'webrtc', externalSubject: subject });

async function makeKey(body: unknown): Promise<KeyView> {
  const made = await api.control<KeyView>('POST', '/keys', body);
  expect(made.status).toBe(201);
  return made.body;
}

describe('POST /__sim/keys: a new key of a new account, in the state asked for', () => {
  it('makes a key in the spec\'s format in the default state, which the REST API serves', async () => {
    const made = await makeKey({});
    expect(made).toEqual({
      key: expect.stringMatching(/^vsk_[A-Za-z0-9]{32}$/),
      accountId: expect.any(String),
      scopes: ['voice_calls.read', 'voice_calls.write'],
      paused: false,
      allowList: [],
      quota: { perMinute: 100, perHour: 10_000 },
      account: { suspended: false, voiceEntitled: true, recordingSupported: false, maxActiveCalls: 50 },
    });
    expect(await read(made.key)).toMatchObject({ status: 200 });
    expect(await write(made.key, 'made-default')).toMatchObject({ status: 201 });
    // Each key has an account of its own, so one test's suspension touches no other's.
    expect((await makeKey({})).accountId).not.toBe(made.accountId);
  });

  it.each([
    ['5.4: a suspended account', { account: { suspended: true } }, { status: 403, code: 'account_suspended' }],
    ['5.5: an account without voice', { account: { voiceEntitled: false } }, { status: 403, code: 'voice_not_entitled' }],
    ['3.3, 5.3: a paused key', { paused: true }, { status: 401, code: 'invalid_credentials' }],
    ['5.3: an allow-list without 127.0.0.1', { allowList: ['192.0.2.0/24', '2001:db8::/32'] }, { status: 401, code: 'invalid_credentials' }],
  ])('%s is refused on every request', async (_, body, expected) => {
    const { key } = await makeKey(body);
    expect(await read(key)).toMatchObject(expected);
    expect(await write(key, 'made-refused')).toMatchObject(expected);
  });

  it('2.1: an allow-list holding 127.0.0.1 lets the key through', async () => {
    const made = await makeKey({ allowList: ['10.0.0.0/8', '127.0.0.1'] });
    expect(made.allowList).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(await read(made.key)).toMatchObject({ status: 200 });
  });

  it('5.6: a key without voice_calls.write reads, and is refused 403 insufficient_scope on a write', async () => {
    const { key, scopes } = await makeKey({ scopes: ['voice_calls.read'] });
    expect(scopes).toEqual(['voice_calls.read']);
    expect(await read(key)).toMatchObject({ status: 200 });
    expect(await write(key, 'made-read-only')).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('8: a key with a quota of 2 a minute is refused its third request 429 rate_limited with Retry-After', async () => {
    const made = await makeKey({ quota: { perMinute: 2 } });
    expect(made.quota).toEqual({ perMinute: 2, perHour: 10_000 });
    expect([await read(made.key), await read(made.key)]).toMatchObject([{ status: 200 }, { status: 200 }]);
    expect(await read(made.key)).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: expect.stringMatching(/^\d+$/) });
  });

  it.each([
    [{ scopes: ['voice_calls.admin'] }, /^scopes\.0: /],
    [{ allowList: ['10.0.0.0/33'] }, /^allowList\.0: must be an IP address or a CIDR range/],
    [{ allowList: ['example.com'] }, /^allowList\.0: /],
    [{ quota: { perMinute: 0 } }, /^quota\.perMinute: /],
    [{ quota: { perHour: 1.5 } }, /^quota\.perHour: /],
    [{ account: { maxActiveCalls: -1 } }, /^account\.maxActiveCalls: /],
    [{ account: { suspended: 'yes' } }, /^account\.suspended: /],
    [{ paused: true, owner: 'me' }, /owner/],
    [[], /^body: /],
  ])('refuses %j with 400 invalid_input naming the field', async (body, message) => {
    const refused = await api.control<{ code: string; error: string }>('POST', '/keys', body);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_input');
    expect(refused.body.error).toMatch(message);
  });

  it('refuses a body that is not JSON with 400 invalid_input, and takes an empty body as {}', async () => {
    const notJson = await fetch(`${sim.url}/__sim/keys`, { method: 'POST', body: '{' });
    expect({ status: notJson.status, code: ((await notJson.json()) as { code: string }).code }).toEqual({ status: 400, code: 'invalid_input' });
    const empty = await fetch(`${sim.url}/__sim/keys`, { method: 'POST' });
    expect(empty.status).toBe(201);
  });
});

describe('PATCH /__sim/keys/:key: the live state of a key and its account (spec 3.3, 5.4)', () => {
  it('suspends, reinstates, pauses and resumes a key, each from the next request', async () => {
    const { key } = await makeKey({});
    expect(await read(key)).toMatchObject({ status: 200 });

    const suspended = await api.control<KeyView>('PATCH', `/keys/${key}`, { account: { suspended: true } });
    expect(suspended).toMatchObject({ status: 200, body: { key, paused: false, account: { suspended: true } } });
    expect(await read(key)).toMatchObject({ status: 403, code: 'account_suspended' });

    const paused = await api.control<KeyView>('PATCH', `/keys/${key}`, { account: { suspended: false }, paused: true });
    expect(paused.body).toMatchObject({ paused: true, account: { suspended: false } });
    expect(await read(key)).toMatchObject({ status: 401, code: 'invalid_credentials' });

    await api.control('PATCH', `/keys/${key}`, { paused: false });
    expect(await read(key)).toMatchObject({ status: 200 });
  });

  it('answers an unknown key 404 not_found, and a bad body 400 invalid_input naming the field', async () => {
    const unknown = await api.control('PATCH', '/keys/vsk_00000000000000000000000000000000', { paused: true });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const { key } = await makeKey({});
    const refused = await api.control<{ code: string; error: string }>('PATCH', `/keys/${key}`, { scopes: ['voice_calls.read'] });
    expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_input' } });
    expect(refused.body.error).toMatch(/scopes/);
  });
});

describe('POST /__sim/reset and keys', () => {
  it('forgets the keys made through the control API and puts back the simulator\'s own key as it started', async () => {
    const { key } = await makeKey({});
    expect(await read(key)).toMatchObject({ status: 200 });
    expect(await api.control('PATCH', `/keys/${SIM_TEST_KEY}`, { account: { voiceEntitled: false } })).toMatchObject({ status: 200 });
    expect(await read(SIM_TEST_KEY)).toMatchObject({ status: 403, code: 'voice_not_entitled' });

    expect((await api.control('POST', '/reset')).status).toBe(200);
    expect(await read(key)).toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(await api.control('PATCH', `/keys/${key}`, { paused: true })).toMatchObject({ status: 404 });
    expect(await read(SIM_TEST_KEY)).toMatchObject({ status: 200 });
  });
});
