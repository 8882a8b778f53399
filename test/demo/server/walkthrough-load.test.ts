import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../../scripts/start-app.js';
import { useSipWorlds } from '../../simulator/support/sip-world.js';

/**
 * The README's walkthrough on `npm start` as it ships (the demo's server with its embedded simulator, and no
 * variable but the free ports and the log level scripts/start-app.ts sets): two agents, one on a call, and a
 * supervisor who lists the calls, listens in and lists the call's recordings, each page reading what it shows
 * as often as the demo does. None of it is refused, by the proxy's per-user limits, its key budget or the
 * service's quota. The pages are SIP.js clients in Node, so the call and the monitor leg are really up.
 */

const sip = useSipWorlds();
let app: RunningApp;

beforeAll(async () => {
  app = await startApp();
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

interface Page {
  cookie: string;
  sessionId: string;
  client: Awaited<ReturnType<typeof sip.sipClient>>;
}

/** Every answer the pages got, for the one check at the end: none refused. */
const answers: Array<{ what: string; status: number; code?: string; limit: string | null }> = [];

async function voice(page: Pick<Page, 'cookie'>, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${app.demo}/voice${path}`, {
    method,
    headers: { cookie: page.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, any>;
  answers.push({ what: `${method} ${path}`, status: response.status, code: json.code, limit: response.headers.get('x-ratelimit-limit') });
  return { status: response.status, json };
}

/** A logged-in user whose page made its session and registered it over SIP. */
async function login(username: string): Promise<Page> {
  const login = await fetch(`${app.demo}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username }) });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const created = await voice({ cookie }, 'POST', '/browser-sessions', {});
  expect(created.status).toBe(201);
  const client = await sip.sipClient(created.json.transport);
  expect((await client.register(client.registerer(created.json.transport.registrationExpiresSeconds))).statusCode).toBe(200);
  return { cookie, sessionId: created.json.session.id, client };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('npm start with no variable', () => {
  it('serves two agents, a call, a supervisor listening in and the recordings list without a refusal', async () => {
    const [agent1, agent2, lead1] = [await login('agent1'), await login('agent2'), await login('lead1')];
    await voice(agent2, 'PUT', '/availability', { availability: 'available' });

    const invited = agent1.client.nextInvitation();
    const call = await voice(agent1, 'POST', '/browser-calls', { sessionId: agent1.sessionId, from: '+12025550199', to: '+12025550100' }, { 'idempotency-key': randomUUID() });
    expect(call.status).toBe(202);
    await (await invited).accept();
    const callId = call.json.call.id as string;
    await expect.poll(async () => (await voice(agent1, 'GET', `/browser-calls/${callId}`)).json.call?.state, { timeout: 15_000 }).toBe('connected');

    expect((await voice(lead1, 'GET', '/supervised-calls')).json.calls).toEqual([expect.objectContaining({ call: expect.objectContaining({ id: callId }) })]);
    const leg = lead1.client.nextInvitation();
    const monitored = await voice(lead1, 'POST', `/calls/${callId}/monitor`, {});
    expect(monitored.status).toBe(201);
    await (await leg).accept();
    const legId = monitored.json.call.id as string;

    // Ten seconds of the pages' own reads: each call once a second, the supervisor's list and recordings every 4 s.
    for (let second = 0; second < 10; second += 1) {
      await Promise.all([
        voice(agent1, 'GET', `/browser-calls/${callId}`),
        voice(lead1, 'GET', `/calls/${legId}`),
        voice(agent2, 'GET', '/availability'),
        ...(second % 4 === 0 ? [voice(lead1, 'GET', '/supervised-calls'), voice(lead1, 'GET', `/recordings?callId=${callId}`)] : []),
      ]);
      await pause(1000);
    }
    expect((await voice(lead1, 'GET', `/calls/${legId}`)).json.call.state).toBe('established');

    expect(answers.filter((answer) => answer.status >= 400)).toEqual([]);
    // The service's own headers on the reads: the demo key's quota, not the spec's default of 100 a minute.
    expect(answers.find((answer) => answer.limit !== null)?.limit).toBe('1000');
  }, 120_000);
});
