import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateApiKey, KeyRegistry } from '../../../simulator/service/accounts.js';
import { DEFAULT_ADDRESS, expectAnswer, KEYS, RestWorld, type ApiRequest, type Expected } from './rest-support.js';

/** Conformance of the simulated service to spec 5 (authentication), 3.3 (key lifecycle) and 4.7 (scopes). */

let world: RestWorld;
beforeEach(() => {
  world = new RestWorld();
});
afterEach(() => world.close());

interface Case {
  rule: string;
  request: ApiRequest;
  /** The caller's address; default {@link DEFAULT_ADDRESS}. */
  address?: string | undefined;
  expected: Expected;
}

const agents: ApiRequest = { path: '/agents' };
const refused: Expected = { status: 401, code: 'invalid_credentials' };

const credentialCases: Case[] = [
  { rule: '5.1: X-Api-Key alone is accepted', request: agents, expected: { status: 200 } },
  { rule: '5.1: Authorization: Bearer alone is accepted', request: { path: '/agents', key: null, headers: { Authorization: `Bearer ${KEYS.main}` } }, expected: { status: 200 } },
  { rule: '5.1: X-Api-Key and Authorization together are 401 invalid_credentials', request: { path: '/agents', headers: { Authorization: `Bearer ${KEYS.main}` } }, expected: refused },
  { rule: '5.1: an Authorization that is not Bearer is 401 invalid_credentials', request: { path: '/agents', key: null, headers: { Authorization: `Basic ${btoa(`${KEYS.main}:`)}` } }, expected: refused },
  { rule: '5.3: no credential is 401 invalid_credentials', request: { path: '/agents', key: null }, expected: refused },
  { rule: '5.3: a blank X-Api-Key is 401 invalid_credentials', request: { path: '/agents', key: '   ' }, expected: refused },
  { rule: '5.3: an unknown key is 401 invalid_credentials', request: { path: '/agents', key: KEYS.unknown }, expected: refused },
  { rule: '5.3: an unknown Bearer key is 401 invalid_credentials', request: { path: '/agents', key: null, headers: { Authorization: `Bearer ${KEYS.unknown}` } }, expected: refused },
  { rule: '5.3, 3.3: a paused key is 401 invalid_credentials', request: { path: '/agents', key: KEYS.paused }, expected: refused },
  { rule: '5.3, 3.3: a deleted key is 401 invalid_credentials', request: { path: '/agents', key: KEYS.deleted }, expected: refused },
  { rule: '5.3: an address outside the allow-list is 401 invalid_credentials', request: { path: '/agents', key: KEYS.allowListed }, expected: refused },
  { rule: '5.3: an allow-listed key from an unknown address is 401 invalid_credentials', request: { path: '/agents', key: KEYS.allowListed }, address: undefined, expected: refused },
  { rule: '2.1: an address inside an allow-listed IPv4 range is accepted', request: { path: '/agents', key: KEYS.allowListed }, address: '198.51.100.20', expected: { status: 200 } },
  { rule: '2.1: an allow-listed single address is accepted', request: { path: '/agents', key: KEYS.allowListed }, address: '192.0.2.9', expected: { status: 200 } },
  { rule: '2.1: an IPv4-mapped IPv6 address is checked as its IPv4 address', request: { path: '/agents', key: KEYS.allowListed }, address: '::ffff:198.51.100.20', expected: { status: 200 } },
  { rule: '2.1: an address inside an allow-listed IPv6 range is accepted', request: { path: '/agents', key: KEYS.allowListed }, address: '2001:db8::42', expected: { status: 200 } },
  { rule: '5.4, 3.3: a key of a suspended account is 403 account_suspended on a read', request: { path: '/agents', key: KEYS.suspended }, expected: { status: 403, code: 'account_suspended' } },
  {
    rule: '5.4, 3.3: a key of a suspended account is 403 account_suspended on a write',
    request: { path: '/browser-sessions', key: KEYS.suspended, headers: { 'Idempotency-Key': 'k1' }, body: { externalSubject: 'alice' } },
    expected: { status: 403, code: 'account_suspended' },
  },
  { rule: '5.5: a key of an account without voice is 403 voice_not_entitled', request: { path: '/agents', key: KEYS.notEntitled }, expected: { status: 403, code: 'voice_not_entitled' } },
];

const needsRead: Expected = { status: 403, code: 'insufficient_scope' };
const scopeCases: Case[] = [
  { rule: '4.7, 5.6: GET /agents needs voice_calls.read', request: { path: '/agents', key: KEYS.writeOnly }, expected: needsRead },
  { rule: '4.7, 5.6: GET /browser-sessions needs voice_calls.read', request: { path: '/browser-sessions?externalSubject=alice', key: KEYS.writeOnly }, expected: needsRead },
  { rule: '4.7, 5.6: GET /browser-sessions/{id} needs voice_calls.read', request: { path: '/browser-sessions/bs_x', key: KEYS.writeOnly }, expected: needsRead },
  { rule: '4.7, 5.6: GET /browser-calls/{id} needs voice_calls.read', request: { path: '/browser-calls/bc_x', key: KEYS.writeOnly }, expected: needsRead },
  { rule: '4.7, 5.6: POST /agents needs voice_calls.write', request: { path: '/agents', key: KEYS.readOnly, body: { name: 'a', type: 'webrtc', externalSubject: 'alice' } }, expected: needsRead },
  {
    rule: '4.7, 5.6: POST /browser-sessions needs voice_calls.write',
    request: { path: '/browser-sessions', key: KEYS.readOnly, headers: { 'Idempotency-Key': 'k1' }, body: { externalSubject: 'alice' } },
    expected: needsRead,
  },
  { rule: '4.7, 5.6: DELETE /browser-sessions/{id} needs voice_calls.write', request: { method: 'DELETE', path: '/browser-sessions/bs_x', key: KEYS.readOnly, body: {} }, expected: needsRead },
  {
    rule: '4.7, 5.6: POST /browser-calls needs voice_calls.write',
    request: { path: '/browser-calls', key: KEYS.readOnly, headers: { 'Idempotency-Key': 'k1' }, body: { sessionId: 'bs_x', from: '+12025550199', to: '+12025550100' } },
    expected: needsRead,
  },
  { rule: '4.7, 5.6: POST /browser-calls/{id}/hangup needs voice_calls.write', request: { path: '/browser-calls/bc_x/hangup', key: KEYS.readOnly, body: {} }, expected: needsRead },
];

describe('spec 5: credentials', () => {
  it.each(credentialCases)('$rule', async (row) => {
    world.address = 'address' in row ? row.address : DEFAULT_ADDRESS;
    expectAnswer(await world.send(row.request), row.expected);
  });

  it('3.3: pausing a key refuses its next request with 401, and resuming lets it through again', async () => {
    expectAnswer(await world.send(agents), { status: 200 });
    world.registry.setKeyStatus(KEYS.main, 'paused');
    expectAnswer(await world.send(agents), refused);
    world.registry.setKeyStatus(KEYS.main, 'active');
    expectAnswer(await world.send(agents), { status: 200 });
  });

  it('5.4: suspending an account refuses every key of it at once with 403, until it is reinstated', async () => {
    world.registry.updateAccount('acct_main', { suspended: true });
    expectAnswer(await world.send(agents), { status: 403, code: 'account_suspended' });
    expectAnswer(await world.send({ ...agents, key: KEYS.sibling }), { status: 403, code: 'account_suspended' });
    world.registry.updateAccount('acct_main', { suspended: false });
    expectAnswer(await world.send(agents), { status: 200 });
  });

  it('5.3: unknown, paused, deleted and disallowed-address keys get the very same answer', async () => {
    const bodies = new Set<string>();
    for (const key of [KEYS.unknown, KEYS.paused, KEYS.deleted, KEYS.allowListed]) bodies.add((await world.send({ ...agents, key })).text);
    expect([...bodies]).toEqual([JSON.stringify({ error: 'missing or invalid API key', code: 'invalid_credentials' })]);
  });

  it('5.3: a deleted key stays deleted', () => {
    expect(() => world.registry.setKeyStatus(KEYS.deleted, 'active')).toThrow(/deleted/);
  });

  it('2.1: keys are "vsk_" plus 32 letters or digits, and a malformed key or allow-list entry is refused at creation', () => {
    expect(generateApiKey()).toMatch(/^vsk_[A-Za-z0-9]{32}$/);
    const registry = new KeyRegistry();
    registry.addAccount({ id: 'a' });
    expect(() => registry.addKey({ accountId: 'a', value: 'vsk_short' })).toThrow(/32 letters or digits/);
    expect(() => registry.addKey({ accountId: 'a', allowList: ['10.0.0.0/33'] })).toThrow(/allow-list entry/);
    expect(() => registry.addKey({ accountId: 'a', allowList: ['example.com'] })).toThrow(/allow-list entry/);
    expect(() => registry.addKey({ accountId: 'nobody' })).toThrow(/no account/);
  });
});

describe('spec 4.7, 5.6: scopes', () => {
  it.each(scopeCases)('$rule', async ({ request, expected }) => {
    expectAnswer(await world.send(request), expected);
  });
});
