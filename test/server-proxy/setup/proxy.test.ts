import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFetchBackend } from '../../../lib/platform/web/backend.js';
import { isDefiniteRejection, VoiceBrowserError } from '../../../lib/core/errors.js';
import { KeyRegistry } from '../../../simulator/service/accounts.js';
import type { ApiKeyRecord } from '../../../simulator/http/rest.js';
import {
  ALL_SCOPES,
  API_KEY,
  createHarness,
  createSession,
  send,
  type Fetch,
  type Harness,
  type HarnessOptions,
} from '../support/harness.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { callRecord, withCalls, type CallRecord } from '../support/calls-overlay.js';
import { settleOnClock } from '../support/drive-clock.js';

let harnesses: Harness[] = [];

function setup(options: HarnessOptions = {}): Harness {
  const h = createHarness(options);
  harnesses.push(h);
  return h;
}

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(harnesses.map((h) => h.close()));
  harnesses = [];
});

const validCall = (sessionId: string) => ({ sessionId, from: '+12025550199', to: '+12025550100' });

describe('every route', () => {
  const routes: Array<[string, string]> = [
    ['POST', '/voice/browser-sessions'],
    ['GET', '/voice/browser-sessions'],
    ['GET', '/voice/browser-sessions/bs_x'],
    ['DELETE', '/voice/browser-sessions/bs_x'],
    ['POST', '/voice/browser-calls'],
    ['GET', '/voice/browser-calls/bc_x'],
    ['POST', '/voice/browser-calls/bc_x/hangup'],
  ];

  it.each(routes)('answers %s %s with 401 unauthenticated when nobody is logged in, before asking upstream', async (method, path) => {
    const h = setup();
    const body = method === 'POST' || method === 'DELETE' ? {} : undefined;
    const response = await send(h, method, path, { body, headers: { 'Idempotency-Key': 'k1' } });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ code: 'unauthenticated', error: expect.any(String) });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(h.seen).toHaveLength(0);
  });
});

describe('POST /voice/browser-sessions', () => {
  it('creates the user’s webrtc agent once and a session with its transport on every press', async () => {
    const h = setup();
    const first = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });
    const second = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });

    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first.json).toMatchObject({
      session: { externalSubject: 'alice', status: 'active' },
      transport: { authorizationUsername: expect.any(String), authorizationPassword: expect.any(String), websocketUrl: 'ws://sim.test/sip' },
    });
    const agents = h.service.listAgents(API_KEY, 'alice');
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ type: 'webrtc', name: 'User alice' });
    expect(h.seen.filter((r) => r.method === 'POST' && r.path === '/agents')).toHaveLength(1);
    // The second session superseded the first at the service.
    const firstId = (first.json as { session: { id: string } }).session.id;
    expect(h.service.getSession(API_KEY, firstId).status).toBe('ended');
  });

  it('finds an agent that already exists at the service (409 agent_exists, then the list)', async () => {
    const h = setup();
    const existing = h.service.createAgent(API_KEY, { name: 'made elsewhere', externalSubject: 'alice' });

    const response = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });

    expect(response.status).toBe(201);
    expect(response.json).toMatchObject({ session: { agentId: existing.id, externalSubject: 'alice' } });
    expect(h.service.listAgents(API_KEY, 'alice')).toEqual([existing]);
    expect(h.seen.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /agents', 'GET /agents', 'POST /browser-sessions']);
  });

  it('finds the agent again after the service forgot it, on the next press', async () => {
    const h = setup();
    await createSession(h, 'alice');
    // A restarted simulator (or an agent removed at the service) leaves the proxy's cached agent id stale.
    await h.service.reset();

    const stale = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });
    const next = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });

    expect(stale.status).toBe(400);
    expect(stale.json).toMatchObject({ code: 'not_found' });
    expect(next.status).toBe(201);
    expect(h.service.listAgents(API_KEY, 'alice')).toHaveLength(1);
  });

  it('keeps separate agents for separate users', async () => {
    const h = setup();
    await createSession(h, 'alice');
    await createSession(h, 'bob');
    expect(h.service.listAgents(API_KEY).map((a) => a.externalSubject).sort()).toEqual(['alice', 'bob']);
  });

  it('sends the authenticated subject with the key and a fresh Idempotency-Key, never the page’s credentials', async () => {
    const h = setup();
    const page = { Authorization: 'Bearer page-token-123', Cookie: 'sid=page-cookie-456' };
    await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', headers: page, body: {} });
    await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', headers: page, body: {} });

    expect(h.seen.length).toBeGreaterThan(0);
    for (const request of h.seen) {
      expect(request.headers.get('x-api-key')).toBe(API_KEY);
      expect(request.headers.get('authorization')).toBeNull();
      expect(request.headers.get('cookie')).toBeNull();
      expect(request.headers.get('x-test-user')).toBeNull();
      expect(request.url.origin + request.url.pathname).toMatch(/^http:\/\/sim\.test\/api\/v1\/voice\//);
    }
    const sessions = h.seen.filter((r) => r.method === 'POST' && r.path === '/browser-sessions');
    expect(sessions.map((r) => r.body)).toEqual([{ externalSubject: 'alice' }, { externalSubject: 'alice' }]);
    const keys = sessions.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toEqual(expect.any(String));
    expect(keys[1]).toEqual(expect.any(String));
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('refuses a page-chosen externalSubject instead of forwarding it', async () => {
    const h = setup();
    const response = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: { externalSubject: 'bob' } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'invalid_input' });
    expect(h.seen).toHaveLength(0);
    expect(h.service.listAgents(API_KEY)).toHaveLength(0);
  });
});

describe('GET /voice/browser-sessions', () => {
  it('returns the logged-in user’s current session whatever externalSubject the page asks for', async () => {
    const h = setup();
    await createSession(h, 'bob');
    const alice = await createSession(h, 'alice');

    const response = await send(h, 'GET', '/voice/browser-sessions?externalSubject=bob', { user: 'alice' });

    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.json).toMatchObject({ session: { id: alice.session.id, externalSubject: 'alice' }, call: null });
    // spec 4.7: no credentials on this read.
    expect(response.json).not.toHaveProperty('transport');
    const read = h.seen.filter((r) => r.method === 'GET' && r.path === '/browser-sessions');
    expect(read.map((r) => r.url.searchParams.getAll('externalSubject'))).toEqual([['alice']]);
  });

  it('answers no session for a user who has none, even when asking for another user’s', async () => {
    const h = setup();
    await createSession(h, 'bob');
    const response = await send(h, 'GET', '/voice/browser-sessions?externalSubject=bob', { user: 'alice' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ session: null, call: null });
  });
});

describe('GET and DELETE /voice/browser-sessions/:id', () => {
  it('reads the owner’s session', async () => {
    const h = setup();
    const alice = await createSession(h, 'alice');
    const response = await send(h, 'GET', `/voice/browser-sessions/${alice.session.id}`, { user: 'alice' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.json).toMatchObject({ session: { id: alice.session.id, externalSubject: 'alice', status: 'active' } });
  });

  it('answers another user’s session exactly as an unknown id', async () => {
    const h = setup();
    const alice = await createSession(h, 'alice');
    const unknown = await send(h, 'GET', '/voice/browser-sessions/bs_doesnotexist', { user: 'bob' });
    const theirs = await send(h, 'GET', `/voice/browser-sessions/${alice.session.id}`, { user: 'bob' });

    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'not_found' });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    expect(theirs.text).not.toContain('alice');
  });

  it('ends the owner’s session at the service', async () => {
    const h = setup();
    const alice = await createSession(h, 'alice');
    const response = await send(h, 'DELETE', `/voice/browser-sessions/${alice.session.id}`, { user: 'alice', body: {} });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ session: { id: alice.session.id, status: 'ended' } });
    expect(h.service.getSession(API_KEY, alice.session.id).status).toBe('ended');
  });

  it('refuses to end another user’s session, answering as for an unknown id', async () => {
    const h = setup();
    const alice = await createSession(h, 'alice');
    const unknown = await send(h, 'DELETE', '/voice/browser-sessions/bs_doesnotexist', { user: 'bob', body: {} });
    const theirs = await send(h, 'DELETE', `/voice/browser-sessions/${alice.session.id}`, { user: 'bob', body: {} });

    expect(unknown.status).toBe(404);
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    expect(h.service.getSession(API_KEY, alice.session.id).status).toBe('active');
    expect(h.seen.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });
});

describe('POST /voice/browser-calls', () => {
  it('forwards a call for the user’s own session and passes the service’s error through in its shape', async () => {
    const h = setup();
    const alice = await createSession(h, 'alice');
    const input = { ...validCall(alice.session.id), customData: { ticket: '42' } };

    const response = await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body: input, headers: { 'Idempotency-Key': 'press-1' } });

    // The simulator needs a SIP registration to ring the agent; without one it refuses the call.
    expect(response.status).toBe(409);
    expect(response.json).toEqual({ error: expect.any(String), code: 'browser_session_unavailable' });
    expect(response.headers.get('cache-control')).toBe('no-store');
    const forwarded = h.seen.filter((r) => r.method === 'POST' && r.path === '/browser-calls');
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]?.body).toEqual(input);
  });

  it('refuses another user’s session id as if it did not exist, without creating a call', async () => {
    const h = setup();
    const alice = await createSession(h, 'alice');
    await createSession(h, 'bob');
    const headers = { 'Idempotency-Key': 'press-1' };
    const unknown = await send(h, 'POST', '/voice/browser-calls', { user: 'bob', body: validCall('bs_doesnotexist'), headers });
    const theirs = await send(h, 'POST', '/voice/browser-calls', { user: 'bob', body: validCall(alice.session.id), headers });

    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'not_found' });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    expect(h.seen.filter((r) => r.method === 'POST' && r.path === '/browser-calls')).toHaveLength(0);
  });

  it.each([
    ['no Idempotency-Key', undefined, validCall('bs_x'), 'idempotency_key_invalid'],
    ['a blank Idempotency-Key', '   ', validCall('bs_x'), 'idempotency_key_invalid'],
    ['an Idempotency-Key of 129 characters', 'k'.repeat(129), validCall('bs_x'), 'idempotency_key_too_long'],
    ['a `to` that is not E.164', 'k1', { ...validCall('bs_x'), to: '2025550100' }, 'invalid_phone'],
    ['a `from` that is not E.164', 'k1', { ...validCall('bs_x'), from: '+0123' }, 'invalid_phone'],
    ['no `to`', 'k1', { sessionId: 'bs_x', from: '+12025550199' }, 'missing_to'],
    ['customData with a $ key', 'k1', { ...validCall('bs_x'), customData: { $secret: 'x' } }, 'invalid_metadata'],
    ['an unknown field', 'k1', { ...validCall('bs_x'), externalSubject: 'bob' }, 'invalid_input'],
    ['a body that is not JSON', 'k1', '{"sessionId": ', 'invalid_input'],
  ])('answers %s with 400 before any upstream request', async (_what, key, body, code) => {
    const h = setup();
    const headers: Record<string, string> = key === undefined ? {} : { 'Idempotency-Key': key };
    const response = await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body, headers });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: expect.any(String), code });
    expect(h.seen).toHaveLength(0);
  });

  it('accepts an Idempotency-Key of exactly 128 characters', async () => {
    const h = setup();
    const alice = await createSession(h, 'alice');
    const response = await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body: validCall(alice.session.id), headers: { 'Idempotency-Key': 'k'.repeat(128) } });
    expect(response.json).toMatchObject({ code: 'browser_session_unavailable' });
  });

  it('keeps two users’ equal Idempotency-Keys apart upstream, and one user’s retries together', async () => {
    const h = setup();
    const alice = await createSession(h, 'alice');
    const bob = await createSession(h, 'bob');
    const headers = { 'Idempotency-Key': 'same-key' };
    await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body: validCall(alice.session.id), headers });
    await send(h, 'POST', '/voice/browser-calls', { user: 'bob', body: validCall(bob.session.id), headers });
    await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body: validCall(alice.session.id), headers });
    await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body: validCall(alice.session.id), headers: { 'Idempotency-Key': 'other-key' } });

    const keys = h.seen.filter((r) => r.method === 'POST' && r.path === '/browser-calls').map((r) => r.headers.get('idempotency-key'));
    expect(keys).toHaveLength(4);
    const [aliceFirst, bobFirst, aliceRetry, aliceOther] = keys;
    expect(aliceFirst).toEqual(expect.stringMatching(/^[\x21-\x7e]{1,128}$/));
    expect(aliceFirst).not.toBe('same-key');
    expect(bobFirst).not.toBe(aliceFirst);
    expect(aliceRetry).toBe(aliceFirst);
    expect(aliceOther).not.toBe(aliceFirst);
  });
});

describe('POST /voice/browser-calls when the service refuses the proxy’s key', () => {
  const ACCOUNT = 'acct_refusing';
  /** Spec 3.3 and 5: each way the service refuses a key, set on the service's accounts before the press. */
  const refusals: Array<[string, () => KeyRegistry]> = [
    [
      '401 invalid_credentials (a paused key)',
      () => {
        const registry = KeyRegistry.fromScopes(new Map([[API_KEY, { scopes: ALL_SCOPES }]]), { id: ACCOUNT });
        registry.setKeyStatus(API_KEY, 'paused');
        return registry;
      },
    ],
    ['403 account_suspended', () => KeyRegistry.fromScopes(new Map([[API_KEY, { scopes: ALL_SCOPES }]]), { id: ACCOUNT, suspended: true })],
    ['403 voice_not_entitled', () => KeyRegistry.fromScopes(new Map([[API_KEY, { scopes: ALL_SCOPES }]]), { id: ACCOUNT, voiceEntitled: false })],
    ['403 insufficient_scope (a read-only key)', () => KeyRegistry.fromScopes(new Map([[API_KEY, { scopes: ['voice_calls.read'] }]]), { id: ACCOUNT })],
  ];

  it.each(refusals)('%s: 403 browser_voice_unavailable without detail, which the library reads as nothing created', async (refusal, registry) => {
    const lines: string[] = [];
    const h = setup({ keys: registry(), log: (line) => lines.push(line) });
    // The session is made at the service directly: the key, refused, could not have made it.
    h.service.createAgent(API_KEY, { name: 'alice', externalSubject: 'alice' });
    const { session } = h.service.createSession(API_KEY, 'alice');
    const input = validCall(session.id);

    const response = await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body: input, headers: { 'Idempotency-Key': 'press-1' } });

    // spec 7: a 4xx is a definite no; a 5xx would leave the page reconciling a call that was never made.
    expect(response.status).toBe(403);
    expect(response.json).toEqual({ error: expect.any(String), code: 'browser_voice_unavailable' });
    expect(response.text).not.toMatch(/credential|suspend|entitle|scope|key/i);
    expect(h.service.callsOfSession(session.id)).toEqual([]);
    // The operator learns which refusal it was; the log does not carry the key.
    const code = /\d{3} (\w+)/.exec(refusal)?.[1] ?? '';
    expect(lines.join('\n')).toContain(`refused the API key (${refusal.slice(0, 3)} ${code})`);
    expect(lines.join('\n')).not.toContain(API_KEY);

    const backend = createFetchBackend({ fetch: (url, init) => h.proxy(new Request(`http://app.test${String(url)}`, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-test-user': 'alice' } })) });
    const error = await backend.createCall(input, { idempotencyKey: 'press-2', signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VoiceBrowserError);
    expect((error as VoiceBrowserError).code).toBe('browser_voice_unavailable');
    expect(isDefiniteRejection(error as VoiceBrowserError)).toBe(true);
  });
});

describe('GET /voice/browser-calls/:id and POST /voice/browser-calls/:id/hangup', () => {
  const aliceCall = () => new Map([['bc_alice', callRecord('bc_alice', { externalSubject: 'alice' })]]);

  it('reads the owner’s call', async () => {
    const h = setup({ wrap: withCalls(aliceCall()) });
    const response = await send(h, 'GET', '/voice/browser-calls/bc_alice', { user: 'alice' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.json).toMatchObject({ call: { id: 'bc_alice', state: 'connected', busy: true } });
  });

  it('answers another user’s call exactly as an unknown id', async () => {
    const h = setup({ wrap: withCalls(aliceCall()) });
    const unknown = await send(h, 'GET', '/voice/browser-calls/bc_doesnotexist', { user: 'bob' });
    const theirs = await send(h, 'GET', '/voice/browser-calls/bc_alice', { user: 'bob' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'not_found' });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
  });

  it('hangs up the owner’s call', async () => {
    const h = setup({ wrap: withCalls(aliceCall()) });
    const response = await send(h, 'POST', '/voice/browser-calls/bc_alice/hangup', { user: 'alice', body: {} });
    expect(response.status).toBe(202);
    expect(response.json).toMatchObject({ call: { id: 'bc_alice', state: 'ending' } });
    expect(h.seen.filter((r) => r.path === '/browser-calls/bc_alice/hangup').map((r) => r.body)).toEqual([{}]);
  });

  it('refuses to hang up another user’s call, answering as for an unknown id and sending no hangup', async () => {
    const h = setup({ wrap: withCalls(aliceCall()) });
    const unknown = await send(h, 'POST', '/voice/browser-calls/bc_doesnotexist/hangup', { user: 'bob', body: {} });
    const theirs = await send(h, 'POST', '/voice/browser-calls/bc_alice/hangup', { user: 'bob', body: {} });
    expect(unknown.status).toBe(404);
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    expect(h.seen.filter((r) => r.path.endsWith('/hangup'))).toHaveLength(0);
  });

  it('proves ownership through the call’s session when the record carries no externalSubject', async () => {
    const calls = new Map<string, CallRecord>();
    const h = setup({ wrap: withCalls(calls) });
    const alice = await createSession(h, 'alice');
    const record = callRecord('bc_alice', { sessionId: alice.session.id });
    delete record.externalSubject;
    calls.set('bc_alice', record);

    const own = await send(h, 'GET', '/voice/browser-calls/bc_alice', { user: 'alice' });
    const theirs = await send(h, 'GET', '/voice/browser-calls/bc_alice', { user: 'bob' });

    expect(own.status).toBe(200);
    expect(theirs.status).toBe(404);
    expect(theirs.json).toMatchObject({ code: 'not_found' });
  });

  it('does not turn a fault met while checking the call’s session into a 404', async () => {
    const calls = new Map<string, CallRecord>();
    let sessionsLimited = false;
    const h = setup({
      wrap: (simulator) => {
        const overlaid = withCalls(calls)(simulator);
        return async (input, init) => {
          const url = new URL(input instanceof Request ? input.url : String(input));
          if (sessionsLimited && url.pathname.includes('/browser-sessions/')) {
            return Response.json({ error: 'slow down', code: 'rate_limited' }, { status: 429, headers: { 'Retry-After': '2' } });
          }
          return overlaid(input, init);
        };
      },
    });
    const alice = await createSession(h, 'alice');
    const record = callRecord('bc_alice', { sessionId: alice.session.id });
    delete record.externalSubject;
    calls.set('bc_alice', record);
    sessionsLimited = true;

    const response = await send(h, 'GET', '/voice/browser-calls/bc_alice', { user: 'alice' });

    // A poller that read 404 would think the call vanished; 429 tells it to back off and read again.
    expect(response.status).toBe(429);
    expect(response.json).toMatchObject({ code: 'rate_limited' });
    expect(response.headers.get('retry-after')).toBe('2');
  });
});

describe('upstream faults', () => {
  it('answers 503 upstream_unavailable when the service cannot be reached', async () => {
    const h = setup({ wrap: () => () => Promise.reject(new TypeError('fetch failed')) });
    const response = await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' });
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ error: expect.any(String), code: 'upstream_unavailable' });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a mutation whose answer never came with 504 and an outcome-unknown code, never a hang', async () => {
    // Never answers; like a real fetch, it gives up only when its signal aborts.
    const silent: Fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        const signal = init?.signal;
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    // On a fake clock: the answer comes when the time limit passes on the proxy's clock, whatever the machine's load.
    const clock = new FakeClock(Date.parse('2026-01-05T09:00:00Z'));
    const h = setup({ wrap: () => silent, timeoutMs: 50, clock });
    const started = clock.now();
    const response = await settleOnClock(clock, send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} }), 50);
    expect(response.status).toBe(504);
    // The first thing upstream is POST /agents: it may have been created, so the outcome is unknown.
    expect(response.json).toEqual({ error: expect.stringContaining('Idempotency-Key'), code: 'upstream_outcome_unknown' });
    expect(clock.now() - started).toBe(50);
  });

  it('hides a refused key behind 403 browser_voice_unavailable', async () => {
    const wrongKey = 'vk_test_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ';
    const h = setup({ apiKey: wrongKey });
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' });
    expect(h.seen).toHaveLength(1);
    expect(response.status).toBe(403);
    expect(response.json).toEqual({ error: expect.any(String), code: 'browser_voice_unavailable' });
    expect(response.text).not.toContain('invalid_credentials');
    expect(response.text).not.toContain(wrongKey);
    // The operator learns why; the log does not carry the key either.
    expect(log).toHaveBeenCalled();
    expect(JSON.stringify(log.mock.calls)).not.toContain(wrongKey);
  });

  it('hides a key that lacks a scope behind 403 browser_voice_unavailable', async () => {
    const keys = new Map<string, ApiKeyRecord>([[API_KEY, { scopes: ['voice_calls.read'] }]]);
    const h = setup({ keys });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });
    expect(response.status).toBe(403);
    expect(response.json).toMatchObject({ code: 'browser_voice_unavailable' });
    expect(response.text).not.toContain('insufficient_scope');
  });

  const rateLimited: Fetch = async () =>
    Response.json(
      { error: 'slow down', code: 'rate_limited' },
      { status: 429, headers: { 'Retry-After': '7', 'X-RateLimit-Remaining': '0', 'Set-Cookie': 'upstream=1', 'X-Internal-Trace': 'abc' } },
    );

  it('passes a 429 and its Retry-After through, and no other upstream header', async () => {
    const h = setup({ wrap: () => rateLimited });
    const response = await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' });
    expect(response.status).toBe(429);
    expect(response.json).toMatchObject({ code: 'rate_limited' });
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(response.headers.get('x-internal-trace')).toBeNull();
  });

  it('passes a 429 met during the ownership check through with its Retry-After', async () => {
    const h = setup({ wrap: () => rateLimited });
    const response = await send(h, 'GET', '/voice/browser-sessions/bs_x', { user: 'alice' });
    expect(response.status).toBe(429);
    expect(response.json).toEqual({ error: 'slow down', code: 'rate_limited' });
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('answers 502 upstream_invalid_response when the service answers something that is not JSON', async () => {
    const h = setup({ wrap: () => async () => new Response('<html>bad gateway</html>', { status: 200 }) });
    const response = await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' });
    expect(response.status).toBe(502);
    expect(response.json).toMatchObject({ code: 'upstream_invalid_response' });
    expect(response.text).not.toContain('<html>');
  });
});

describe('the headers option', () => {
  it('puts its headers on every kind of answer, under the answer’s own and no-store', async () => {
    const headers = { 'X-Frame-Options': 'DENY', 'Cache-Control': 'public', 'Retry-After': '999' };
    const h = setup({ headers, rateLimit: { perMinute: 4 } });
    const refused = setup({ headers, apiKey: 'vk_test_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ' });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const answers = [
      await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} }),
      await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' }),
      await send(h, 'GET', '/voice/browser-calls/bc_nope', { user: 'alice' }),
      await send(h, 'GET', '/voice/nothing-here', { user: 'alice' }),
      await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: { pad: 'x'.repeat(70_000) } }),
      await send(h, 'GET', '/voice/browser-sessions'),
      await send(refused, 'GET', '/voice/browser-sessions', { user: 'alice' }),
    ];
    for (let i = answers.length; i < 8; i++) answers.push(await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' }));
    expect(answers.map((answer) => answer.status)).toEqual([201, 200, 404, 404, 413, 401, 403, 429]);
    for (const answer of answers) {
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    // An answer's own headers win over the option's: the 429 keeps its real Retry-After.
    expect(Number(answers[7]?.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });
});

describe('the persistent key', () => {
  it('is held by the proxy and appears in none of a whole session’s answers', async () => {
    // `send` checks every body and header; this walks through every route with a real session.
    const h = setup({ wrap: withCalls(new Map([['bc_alice', callRecord('bc_alice', { externalSubject: 'alice' })]])) });
    const alice = await createSession(h, 'alice');
    expect(JSON.stringify(alice)).not.toContain(API_KEY);
    await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' });
    await send(h, 'GET', `/voice/browser-sessions/${alice.session.id}`, { user: 'alice' });
    await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body: validCall(alice.session.id), headers: { 'Idempotency-Key': 'k' } });
    await send(h, 'GET', '/voice/browser-calls/bc_alice', { user: 'alice' });
    await send(h, 'POST', '/voice/browser-calls/bc_alice/hangup', { user: 'alice', body: {} });
    await send(h, 'DELETE', `/voice/browser-sessions/${alice.session.id}`, { user: 'alice', body: {} });
    expect(h.seen.every((r) => r.headers.get('x-api-key') === API_KEY)).toBe(true);
  });
});
