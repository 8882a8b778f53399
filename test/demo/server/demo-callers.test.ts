import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoCallers, DEMO_LINE, type DemoCallerQueue } from '../../../demo/server/demo-callers.js';
import type { ProxyUser } from '../../../server-proxy/setup/proxy.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { SIM_TEST_KEY } from '../../simulator/support/sim-api.js';

/**
 * Callers on demand (docs/demo.md): the demo server sends a caller into one of its queues through the
 * embedded simulator's control API (a real simulator on 127.0.0.1 here), only for a logged-in user of this site,
 * and says it cannot when there is no simulator (a real service).
 */

let simulator: RunningSimulator;
const queues: DemoCallerQueue[] = [];
const authenticate = async (request: Request): Promise<ProxyUser | null> => (request.headers.get('x-test-user') ? { id: 'demo:agent1' } : null);

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: SIM_TEST_KEY, port: 0 });
  for (const name of ['Support', 'Sales']) {
    const response = await fetch(`${simulator.baseUrl}/v1/voice/queues`, {
      method: 'POST',
      headers: { 'x-api-key': SIM_TEST_KEY, 'content-type': 'application/json' },
      // Nothing listens there: no test waits for the webhook.
      body: JSON.stringify({ name, holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: 'http://127.0.0.1:9/voice/queue-events' }),
    });
    queues.push({ id: ((await response.json()) as { queue: { id: string } }).queue.id, name });
  }
});
afterAll(() => simulator?.close());

const send = (app: ReturnType<typeof createDemoCallers>, body: unknown, headers: Record<string, string> = { 'x-test-user': 'agent1' }) =>
  app.request('http://demo.test/demo/callers', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('callers on demand', () => {
  it('tells the page it can send callers, and to which queues, only with the embedded simulator', async () => {
    const embedded = createDemoCallers({ simulatorUrl: simulator.url, queues, authenticate });
    expect(await (await embedded.request('http://demo.test/demo/callers')).json()).toEqual({ available: true, queues });
    const real = createDemoCallers({ queues: [], authenticate });
    expect(await (await real.request('http://demo.test/demo/callers')).json()).toEqual({ available: false, queues: [] });
    const refused = await send(real, { queue: 'Support' });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ code: 'not_found', error: 'callers on demand need the embedded simulator; a real service has real callers' });
  });

  it('sends a caller to the queue named by name or id, from a 415 number to the desk line, as the simulator holds it', async () => {
    const app = createDemoCallers({ simulatorUrl: simulator.url, queues, authenticate });
    const byName = await send(app, { queue: 'Support' });
    expect(byName.status).toBe(201);
    const { call } = (await byName.json()) as { call: { id: string; queueId: string; from: string; to: string; state: string } };
    expect(call).toMatchObject({ queueId: queues[0]?.id, to: DEMO_LINE, state: 'queued' });
    expect(call.from).toMatch(/^\+14155550\d{3}$/);
    const held = (await (await fetch(`${simulator.url}/__sim/calls/${call.id}`)).json()) as { call: { state: string } };
    expect(held.call.state).toBe('queued');
    const byId = await send(app, { queue: queues[1]?.id, from: '+14155550123' });
    expect(await byId.json()).toMatchObject({ call: { queueId: queues[1]?.id, from: '+14155550123' }, queue: 'Sales' });
  });

  it('refuses a stranger, another site, an unknown queue and a bad number, each with its code, sending nothing', async () => {
    const app = createDemoCallers({ simulatorUrl: simulator.url, queues, authenticate });
    expect((await send(app, { queue: 'Support' }, {})).status).toBe(401);
    expect((await send(app, { queue: 'Support' }, { 'x-test-user': 'agent1', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const unknown = await send(app, { queue: 'Billing' });
    expect([unknown.status, await unknown.json()]).toEqual([404, { code: 'not_found', error: 'no such demo queue "Billing"; the queues are Support, Sales' }]);
    const badNumber = await send(app, { queue: 'Support', from: '12345' });
    expect([badNumber.status, ((await badNumber.json()) as { code: string }).code]).toEqual([400, 'invalid_input']);
  });
});
