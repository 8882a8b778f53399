import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectAnswer, KEYS, RestWorld, type ApiRequest, type Expected } from './rest-support.js';

/**
 * Conformance of the simulated service to spec 4.7 (browser sessions and calls, row by row), 4.8 (agents)
 * and the ownership rule of 4.7: resources belong to the issuing key.
 *
 * Each test starts with alice's agent, a session registered by the stub agent, and one admitted call, all
 * issued by KEYS.main.
 */

interface Ids {
  sessionId: string;
  callId: string;
}

interface Case {
  rule: string;
  request: (ids: Ids) => ApiRequest;
  expected: Expected;
  /** Checks the body beyond status and code. */
  body?: (json: Record<string, unknown>, ids: Ids) => void;
}

let world: RestWorld;
let ids: Ids;

beforeEach(async () => {
  world = new RestWorld();
  const sessionId = await world.openSession('alice');
  const call = await world.startCall(sessionId, 'call-1');
  expect(call.status).toBe(202);
  ids = { sessionId, callId: String((call.json['call'] as { id: string }).id) };
});
afterEach(() => world.close());

const callOf = (json: Record<string, unknown>) => json['call'] as Record<string, unknown>;
const sessionOf = (json: Record<string, unknown>) => json['session'] as Record<string, unknown>;

const routeCases: Case[] = [
  {
    rule: '4.7, 4.8: POST /agents {name, type: webrtc, externalSubject} is 201 with the agent, without a number',
    request: () => ({ path: '/agents', body: { name: 'Bob', type: 'webrtc', externalSubject: 'bob' } }),
    expected: { status: 201 },
    body: (json) => {
      expect(json).toMatchObject({ id: expect.any(String), name: 'Bob', type: 'webrtc', externalSubject: 'bob' });
      expect(json).not.toHaveProperty('number');
    },
  },
  {
    rule: '4.7: POST /agents for a subject that has one is 409 agent_exists',
    request: () => ({ path: '/agents', body: { name: 'Alice again', type: 'webrtc', externalSubject: 'alice' } }),
    expected: { status: 409, code: 'agent_exists' },
  },
  {
    rule: '4.7: POST /agents with a number is refused: browser agents have none',
    request: () => ({ path: '/agents', body: { name: 'Bob', type: 'webrtc', externalSubject: 'bob', number: '+12025550199' } }),
    expected: { status: 400, code: 'invalid_input' },
  },
  {
    rule: '4.7, 4.8: GET /agents lists the key\'s agents',
    request: () => ({ path: '/agents' }),
    expected: { status: 200 },
    body: (json) => expect(json).toEqual({ agents: [expect.objectContaining({ type: 'webrtc', externalSubject: 'alice' })] }),
  },
  {
    rule: '4.7, 4.8: GET /agents?externalSubject= finds the subject\'s agent',
    request: () => ({ path: '/agents?externalSubject=nobody' }),
    expected: { status: 200 },
    body: (json) => expect(json).toEqual({ agents: [] }),
  },
  {
    rule: '7: POST /browser-sessions for a subject without an agent is 400 not_found',
    request: () => ({ path: '/browser-sessions', headers: { 'Idempotency-Key': 'session-2' }, body: { externalSubject: 'bob' } }),
    expected: { status: 400, code: 'not_found' },
  },
  {
    rule: '4.7: GET /browser-sessions?externalSubject= is 200 {session, call} and carries no credentials',
    request: () => ({ path: '/browser-sessions?externalSubject=alice' }),
    expected: { status: 200 },
    body: (json, { sessionId, callId }) => {
      expect(json).toEqual({ session: expect.objectContaining({ id: sessionId, status: 'active' }), call: expect.objectContaining({ id: callId, busy: true }) });
      expect(JSON.stringify(json)).not.toMatch(/transport|password/i);
    },
  },
  {
    rule: '4.7: GET /browser-sessions?externalSubject= of a subject without a session is 200 {session: null, call: null}',
    request: () => ({ path: '/browser-sessions?externalSubject=bob' }),
    expected: { status: 200 },
    body: (json) => expect(json).toEqual({ session: null, call: null }),
  },
  {
    rule: '4.7: GET /browser-sessions/{id} is 200 {session}, metadata only',
    request: ({ sessionId }) => ({ path: `/browser-sessions/${sessionId}` }),
    expected: { status: 200 },
    body: (json, { sessionId }) => {
      expect(Object.keys(json)).toEqual(['session']);
      expect(sessionOf(json)).toMatchObject({ id: sessionId, agentId: expect.any(String), externalSubject: 'alice', status: 'active', expiresAt: expect.any(String), backend: expect.any(String) });
      expect(JSON.stringify(json)).not.toMatch(/transport|password/i);
    },
  },
  {
    rule: '4.7: DELETE /browser-sessions/{id} with {} is 200 {session} and requests cleanup',
    request: ({ sessionId }) => ({ method: 'DELETE', path: `/browser-sessions/${sessionId}`, body: {} }),
    expected: { status: 200 },
    body: (json) => expect(sessionOf(json)).toMatchObject({ status: 'ended' }),
  },
  {
    rule: '3.2, DESIGN: POST /browser-calls while the session has a busy call is 409 browser_agent_busy',
    request: ({ sessionId }) => ({
      path: '/browser-calls',
      headers: { 'Idempotency-Key': 'call-2' },
      body: { sessionId, from: '+12025550199', to: '+12025550100' },
    }),
    expected: { status: 409, code: 'browser_agent_busy' },
  },
  {
    rule: '4.7: GET /browser-calls/{id} is 200 {call}',
    request: ({ callId }) => ({ path: `/browser-calls/${callId}` }),
    expected: { status: 200 },
    body: (json, { callId, sessionId }) =>
      expect(callOf(json)).toMatchObject({ id: callId, sessionId, state: 'waiting_agent', busy: true, from: '+12025550199', to: '+12025550100', revision: expect.any(Number) }),
  },
  {
    rule: '4.7: POST /browser-calls/{id}/hangup with {} is 202 {call}, still busy until a terminal read (3.2)',
    request: ({ callId }) => ({ path: `/browser-calls/${callId}/hangup`, body: {} }),
    expected: { status: 202 },
    body: (json, { callId }) => expect(callOf(json)).toMatchObject({ id: callId }),
  },
  { rule: '4.7: GET /browser-sessions/{id} of no session is 404 not_found', request: () => ({ path: '/browser-sessions/bs_nothing' }), expected: { status: 404, code: 'not_found' } },
  { rule: '4.7: GET /browser-calls/{id} of no call is 404 not_found', request: () => ({ path: '/browser-calls/bc_nothing' }), expected: { status: 404, code: 'not_found' } },
  { rule: '7: an unknown route is 404 not_found', request: () => ({ path: '/conferences' }), expected: { status: 404, code: 'not_found' } },
  {
    rule: '4.7: POST /browser-calls for no session is 404 not_found',
    request: () => ({ path: '/browser-calls', headers: { 'Idempotency-Key': 'nothing' }, body: { sessionId: 'bs_nothing', from: '+12025550199', to: '+12025550100' } }),
    expected: { status: 404, code: 'not_found' },
  },
];

describe('spec 4.7, 4.8: every route', () => {
  it.each(routeCases)('$rule', async ({ request, expected, body }) => {
    const response = await world.send(request(ids));
    expectAnswer(response, expected);
    body?.(response.json, ids);
  });

  it('4.7: POST /browser-sessions is 201 {session, transport} with temporary credentials, no-store', async () => {
    await world.send({ path: '/agents', body: { name: 'Bob', type: 'webrtc', externalSubject: 'bob' } });
    const response = await world.send({ path: '/browser-sessions', headers: { 'Idempotency-Key': 'session-bob' }, body: { externalSubject: 'bob' } });
    expectAnswer(response, { status: 201, headers: { 'content-type': /^application\/json/ } });
    expect(response.json).toEqual({
      session: expect.objectContaining({ externalSubject: 'bob', status: 'active' }),
      transport: expect.objectContaining({ authorizationUsername: expect.any(String), authorizationPassword: expect.any(String) }),
    });
    expect(response.text).not.toContain(KEYS.main);
  });

  it('4.7, 3.2: POST /browser-calls is 202 {call} in waiting_agent with busy true, and rings the registered agent', async () => {
    await world.send({ path: '/agents', body: { name: 'Bob', type: 'webrtc', externalSubject: 'bob' } });
    const sessionId = await world.openSession('bob');
    const response = await world.startCall(sessionId, 'call-bob', KEYS.main, { maxDurationSeconds: 60, customData: { ticket: '42' } });
    expectAnswer(response, { status: 202 });
    const call = callOf(response.json);
    expect(call).toMatchObject({ sessionId, state: 'waiting_agent', busy: true, maxDurationSeconds: 60, customData: { ticket: '42' } });
    expect(world.agent.invites.map((invite) => invite.callId)).toContain(call['id']);
  });

  it('DESIGN: POST /browser-calls for a session whose agent is not registered is 409 browser_session_unavailable', async () => {
    world.service.sip.removeRegistration(ids.sessionId);
    await world.send({ path: `/browser-calls/${ids.callId}/hangup`, body: {} });
    await vi.waitFor(async () => expect(callOf((await world.send({ path: `/browser-calls/${ids.callId}` })).json)).toMatchObject({ busy: false }), { timeout: 30_000 });
    expectAnswer(await world.startCall(ids.sessionId, 'call-2'), { status: 409, code: 'browser_session_unavailable' });
  });

  it('7: a recipient on a do-not-call list is 403 compliance_dnc', async () => {
    const sessionId = await world.openSession('carol');
    const response = await world.startCall(sessionId, 'dnc', KEYS.main, { to: '+12025550105' });
    expectAnswer(response, { status: 403, code: 'compliance_dnc' });
  });

  it('3.2: after hangup 202 the call reads busy until both legs are down, then ended', async () => {
    expectAnswer(await world.send({ path: `/browser-calls/${ids.callId}/hangup`, body: {} }), { status: 202 });
    await vi.waitFor(async () => {
      const read = await world.send({ path: `/browser-calls/${ids.callId}` });
      expectAnswer(read, { status: 200 });
      expect(callOf(read.json)).toMatchObject({ state: 'ended', busy: false, endReason: 'api_hangup' });
    }, { timeout: 30_000 });
  });
});

describe('spec 4.7: resources belong to the issuing key', () => {
  const sibling = KEYS.sibling;
  const ownershipCases: Case[] = [
    { rule: '4.7: another key lists none of the agents', request: () => ({ key: sibling, path: '/agents' }), expected: { status: 200 }, body: (json) => expect(json).toEqual({ agents: [] }) },
    {
      rule: '4.7: another key has no current session for the subject',
      request: () => ({ key: sibling, path: '/browser-sessions?externalSubject=alice' }),
      expected: { status: 200 },
      body: (json) => expect(json).toEqual({ session: null, call: null }),
    },
    { rule: '4.7: another key cannot read the session: 404 not_found', request: ({ sessionId }) => ({ key: sibling, path: `/browser-sessions/${sessionId}` }), expected: { status: 404, code: 'not_found' } },
    {
      rule: '4.7: another key cannot end the session: 404 not_found',
      request: ({ sessionId }) => ({ key: sibling, method: 'DELETE', path: `/browser-sessions/${sessionId}`, body: {} }),
      expected: { status: 404, code: 'not_found' },
    },
    {
      rule: '4.7: another key cannot call through the session: 404 not_found',
      request: ({ sessionId }) => ({ key: sibling, path: '/browser-calls', headers: { 'Idempotency-Key': 'call-1' }, body: { sessionId, from: '+12025550199', to: '+12025550100' } }),
      expected: { status: 404, code: 'not_found' },
    },
    { rule: '4.7: another key cannot read the call: 404 not_found', request: ({ callId }) => ({ key: sibling, path: `/browser-calls/${callId}` }), expected: { status: 404, code: 'not_found' } },
    {
      rule: '4.7: another key cannot hang up the call: 404 not_found',
      request: ({ callId }) => ({ key: sibling, path: `/browser-calls/${callId}/hangup`, body: {} }),
      expected: { status: 404, code: 'not_found' },
    },
    {
      rule: '4.7: another key does not inherit the agent: it may create its own for the subject',
      request: () => ({ key: sibling, path: '/agents', body: { name: 'Alice', type: 'webrtc', externalSubject: 'alice' } }),
      expected: { status: 201 },
    },
  ];

  it.each(ownershipCases)('$rule', async ({ request, expected, body }) => {
    const response = await world.send(request(ids));
    expectAnswer(response, expected);
    body?.(response.json, ids);
    // Whatever the other key tried, the issuing key's resources are as they were.
    const session = await world.send({ path: `/browser-sessions/${ids.sessionId}` });
    expect(sessionOf(session.json)).toMatchObject({ status: 'active' });
    const call = await world.send({ path: `/browser-calls/${ids.callId}` });
    expect(callOf(call.json)).toMatchObject({ busy: true });
  });
});
