import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../../scripts/start-app.js';
import { createSimulatorControl } from '../../../simulator/http/control-client.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { SIM_TEST_KEY } from '../../simulator/support/sim-api.js';
import { useSipWorlds } from '../../simulator/support/sip-world.js';
import { useRedis } from '../support/redis-server.js';

/**
 * The key's budget shared by two proxy processes (the demo's server, as `npm start` runs it) on one real
 * redis-server, in front of one simulator whose key serves two calls at once (180 requests a minute, with room for the sessions set up first): the
 * agents answer with SIP.js in Node, so their calls are really in progress. Whichever replica a new call
 * reaches, the budget counts the calls of both.
 */

const { redis, onStop } = useRedis();
const sip = useSipWorlds();
let simulator: RunningSimulator;
const apps: RunningApp[] = [];

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: SIM_TEST_KEY, port: 0, mediaAddresses: 'loopback', toneMs: 100, quota: { perMinute: 180 } });
  const env = { VOICE_BASE_URL: simulator.baseUrl, VOICE_API_KEY: SIM_TEST_KEY, SESSION_SECRET: 'budget-replicas-test-secret-of-40-chars!!', REDIS_URL: redis().url };
  apps.push(...(await Promise.all([startApp(env), startApp(env)])));
  onStop(() => Promise.all(apps.map((app) => app.stop())));
}, 300_000);

afterAll(async () => {
  await simulator?.close();
});

/** A logged-in user at one replica whose page registered its browser session over SIP. */
interface Agent {
  app: RunningApp;
  cookie: string;
  sessionId: string;
  client: Awaited<ReturnType<typeof sip.sipClient>>;
  /** The next INVITE, awaited from before a call is asked for (it may come before the 202). */
  invited?: ReturnType<Awaited<ReturnType<typeof sip.sipClient>>['nextInvitation']>;
}

async function voice(app: RunningApp, cookie: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${app.demo}/voice${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), json: (await response.json()) as Record<string, any> };
}

async function agentAt(app: RunningApp, username: string): Promise<Agent> {
  const login = await fetch(`${app.demo}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username }) });
  expect(login.status).toBe(200);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const created = await voice(app, cookie, 'POST', '/browser-sessions', {});
  expect(created.status).toBe(201);
  const client = await sip.sipClient(created.json.transport);
  expect((await client.register(client.registerer(created.json.transport.registrationExpiresSeconds))).statusCode).toBe(200);
  return { app, cookie, sessionId: created.json.session.id, client };
}

/** Asks `agent`'s replica for a call; when admitted, the agent answers its INVITE. */
async function callFrom(agent: Agent) {
  // A refused call sends no INVITE: the one awaited stays for the next call.
  agent.invited ??= agent.client.nextInvitation();
  const started = await voice(agent.app, agent.cookie, 'POST', '/browser-calls', { sessionId: agent.sessionId, from: '+12025550199', to: '+12025550100' }, { 'idempotency-key': randomUUID() });
  if (started.status === 202) {
    const invitation = await agent.invited;
    agent.invited = undefined;
    await invitation.accept();
  }
  return started;
}

describe('REDIS_URL and the key budget', () => {
  it('makes two replicas admit only the calls the key serves, refusing the next at whichever replica it reaches, until one ends', async () => {
    const [a, b] = apps;
    if (!a || !b) throw new Error('both apps must have started');
    const [first, second, third] = [await agentAt(a, 'budget-1'), await agentAt(b, 'budget-2'), await agentAt(a, 'budget-3')];

    const one = await callFrom(first);
    const two = await callFrom(second);
    expect([one.status, two.status]).toEqual([202, 202]);

    // Replica a holds one call itself; the other is replica b's, and the shared budget counts it.
    const refused = await callFrom(third);
    expect(refused).toMatchObject({ status: 429, retryAfter: '10', json: { code: 'concurrency_limit' } });
    expect(refused.json.error).toContain("The voice key's quota (180 requests a minute) serves 2 calls at once, and 2 are in progress");
    // It never reached the service.
    expect(await createSimulatorControl(simulator.url).callsOfSession(third.sessionId)).toEqual([]);

    // The first call ends; the read that shows it over frees its place, and the third call goes through.
    const callId = one.json.call.id as string;
    expect((await voice(a, first.cookie, 'POST', `/browser-calls/${callId}/hangup`, {})).status).toBe(202);
    await expect.poll(async () => (await voice(b, first.cookie, 'GET', `/browser-calls/${callId}`)).json.call.busy, { timeout: 10_000 }).toBe(false);
    // The place is given back in Redis as that read is relayed, so a call asked for the same instant may still
    // find it taken: asked again (a refused call sends nothing), it goes through.
    await expect.poll(async () => (await callFrom(third)).status, { timeout: 10_000 }).toBe(202);
  });
});
