import { afterEach, describe, expect, it } from 'vitest';
import { callRecord, withCalls } from '../support/calls-overlay.js';
import { createHarness, createSession, send, type Harness } from '../support/harness.js';

/**
 * Ownership, route by route and method by method: another user's id, an unknown id and an id that is not
 * an id at all get the same answer, byte for byte, and nothing is changed or even asked upstream for the
 * last kind.
 */

let harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  harnesses = [];
});

/** Alice's session and call exist; Bob asks. */
async function world(): Promise<{ h: Harness; sessionId: string; callId: string }> {
  const calls = new Map([['bc_alice', callRecord('bc_alice', { externalSubject: 'alice' })]]);
  const h = createHarness({ wrap: withCalls(calls), rateLimit: false });
  harnesses.push(h);
  const alice = await createSession(h, 'alice');
  await createSession(h, 'bob');
  return { h, sessionId: alice.session.id, callId: 'bc_alice' };
}

interface Route {
  name: string;
  /** Sends Bob's request for `id` (a path segment as the page would encode it, or a body field). */
  send(h: Harness, id: string): ReturnType<typeof send>;
  /** Which of Alice's resources the route is about. */
  owner: 'session' | 'call';
  /** An unknown id of the right kind. */
  unknown: string;
  /** The id is a path segment, so the URL parser resolves dot segments before the proxy sees them. */
  inPath: boolean;
}

const bob = { user: 'bob' };
const routes: Route[] = [
  { name: 'GET /voice/browser-sessions/:id', owner: 'session', unknown: 'bs_unknown', inPath: true, send: (h, id) => send(h, 'GET', `/voice/browser-sessions/${id}`, bob) },
  { name: 'DELETE /voice/browser-sessions/:id', owner: 'session', unknown: 'bs_unknown', inPath: true, send: (h, id) => send(h, 'DELETE', `/voice/browser-sessions/${id}`, { ...bob, body: {} }) },
  {
    name: 'POST /voice/browser-calls {sessionId}',
    owner: 'session',
    unknown: 'bs_unknown',
    inPath: false,
    send: (h, id) =>
      send(h, 'POST', '/voice/browser-calls', { ...bob, headers: { 'Idempotency-Key': 'k1' }, body: { sessionId: decodeURIComponent(id), from: '+12025550199', to: '+12025550100' } }),
  },
  { name: 'GET /voice/browser-calls/:id', owner: 'call', unknown: 'bc_unknown', inPath: true, send: (h, id) => send(h, 'GET', `/voice/browser-calls/${id}`, bob) },
  { name: 'POST /voice/browser-calls/:id/hangup', owner: 'call', unknown: 'bc_unknown', inPath: true, send: (h, id) => send(h, 'POST', `/voice/browser-calls/${id}/hangup`, { ...bob, body: {} }) },
];

/** Ids the URL parser or the service could read as something else; each must be refused before any I/O. */
const invalidIds: Array<[string, string]> = [
  ['dot-dot', '%2E%2E'],
  ['one dot', '%2E'],
  ['dot-dot inside', 'bs_a%2F%2E%2E%2F%2E%2E'],
  ['dot-dot and a path', '%2E%2E%2Fbrowser-calls'],
  ['an encoded slash', 'bs_a%2Fhangup'],
  ['a query', 'bs_a%3Fx%3D1'],
  ['a fragment', 'bs_a%23x'],
  ['a space', 'bs%20a'],
  ['a NUL', 'bs_%00'],
  ['a non-ASCII letter', 'bs_%C3%A9'],
  ['129 characters', 'b'.repeat(129)],
  ['a leading dash', '-bs_a'],
];

describe.each(routes)('$name', (route) => {
  it('answers another user’s id exactly as an unknown one, and changes nothing', async () => {
    const { h, sessionId, callId } = await world();
    const before = h.seen.length;
    const unknown = await route.send(h, route.unknown);
    const theirs = await route.send(h, route.owner === 'session' ? sessionId : callId);

    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: expect.any(String), code: 'not_found' });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(unknown.text);
    // Every header alike but the request's own id and time, which are new on every answer.
    const alike = (headers: Headers) => [...headers].filter(([name]) => name !== 'x-request-id' && name !== 'server-timing').sort();
    expect(alike(theirs.headers)).toEqual(alike(unknown.headers));
    expect(theirs.headers.get('x-request-id')).not.toBe(unknown.headers.get('x-request-id'));
    // Only ownership reads went upstream: no DELETE, no hangup, no call.
    expect(h.seen.slice(before).every((r) => r.method === 'GET')).toBe(true);
    expect(h.service.getSession(h.apiKey, sessionId).status).toBe('active');
  });

  it.each(invalidIds)('answers an id with %s exactly as an unknown one, without asking upstream', async (_what, id) => {
    const { h } = await world();
    const unknown = await route.send(h, route.unknown);
    const before = h.seen.length;

    const invalid = await route.send(h, id);

    expect(invalid.status).toBe(404);
    expect(h.seen.slice(before)).toEqual([]);
    if (route.inPath && /^(%2E){1,2}$/.test(id)) {
      // The page's own URL parser already resolved the dot segment: this is a request for another route.
      expect(invalid.json).toEqual({ error: expect.any(String), code: 'not_found' });
    } else {
      expect(invalid.text).toBe(unknown.text);
    }
  });
});

describe('the owner', () => {
  it('gets through every route with the same ids that others are refused', async () => {
    const { h, sessionId, callId } = await world();
    expect((await send(h, 'GET', `/voice/browser-sessions/${sessionId}`, { user: 'alice' })).status).toBe(200);
    expect((await send(h, 'GET', `/voice/browser-calls/${callId}`, { user: 'alice' })).status).toBe(200);
    expect((await send(h, 'POST', `/voice/browser-calls/${callId}/hangup`, { user: 'alice', body: {} })).status).toBe(202);
    expect((await send(h, 'DELETE', `/voice/browser-sessions/${sessionId}`, { user: 'alice', body: {} })).status).toBe(200);
  });
});
