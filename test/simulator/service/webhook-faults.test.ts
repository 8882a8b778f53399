import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatorControl, SimulatorControlError, type SimulatorControl } from '../../../simulator/http/control-client.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';

/**
 * The webhook faults through the control API, against the simulator on its port: `drop-webhook` loses the next
 * webhooks of an event (spec 6.1: one attempt, no retry, so they never come), `delay-webhook` sends them late, as
 * they stood when emitted; the other event, and other queues, are delivered as usual; reset forgets the late ones.
 */

const API_KEY = 'vsk_WebhookFaultsTestKey0000000000000';

let simulator: RunningSimulator;
let control: SimulatorControl;
let receiver: Server;
let notifyUrl = '';
/** Each webhook received: its event and call, and when. */
const received: Array<{ event: string; callId: string; state: string; at: number }> = [];

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: API_KEY, port: 0, mediaAddresses: 'loopback' });
  control = createSimulatorControl(simulator.url);
  receiver = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ ...(JSON.parse(raw) as { event: string; callId: string; state: string }), at: Date.now() });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/queue-events`;
});
afterAll(async () => {
  await simulator.close();
  await new Promise((resolve) => receiver.close(resolve));
});
afterEach(async () => {
  await control.reset();
  received.length = 0;
});

async function createQueue(name: string): Promise<string> {
  const response = await fetch(`${simulator.baseUrl}/v1/voice/queues`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name, holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { queue: { id: string } }).queue.id;
}

const arrive = (queueId: string) => control.inbound({ queueId, from: '+12025550123', to: '+12025550150' });
const of = (callId: string) => received.filter((webhook) => webhook.callId === callId).map((webhook) => webhook.event);
/** Lets webhooks on their way land: a later webhook, sent after them, has come. */
async function settled(queueId: string): Promise<void> {
  const marker = await arrive(queueId);
  await expect.poll(() => of(marker.id)).toEqual(['call.received']);
}

describe('drop-webhook', () => {
  it('loses the next call.received; the call waits all the same, and its call.ended comes', async () => {
    const queueId = await createQueue('Support');
    await control.fault({ fault: 'drop-webhook', event: 'call.received' });
    const lost = await arrive(queueId);
    expect(lost.state).toBe('queued');
    await settled(queueId);
    expect(of(lost.id)).toEqual([]);
    expect((await control.inboundCall(lost.id)).call.state).toBe('queued');
    await control.callerHangup(lost.id);
    await expect.poll(() => of(lost.id)).toEqual(['call.ended']);
  });

  it('loses the next count call.ended of one queue only', async () => {
    const support = await createQueue('Support');
    const sales = await createQueue('Sales');
    const callers = [await arrive(support), await arrive(support), await arrive(sales), await arrive(support)];
    await settled(support);
    await control.fault({ fault: 'drop-webhook', event: 'call.ended', queueId: support, count: 2 });
    expect((await fetch(`${simulator.url}/__sim/faults`).then((r) => r.json())) as unknown).toEqual({ armed: [{ fault: 'drop-webhook', event: 'call.ended', queueId: support, count: 2, remaining: 2 }] });
    for (const caller of callers) await control.callerHangup(caller.id);
    await settled(support);
    expect(callers.map((caller) => of(caller.id))).toEqual([['call.received'], ['call.received'], ['call.received', 'call.ended'], ['call.received', 'call.ended']]);
  });
});

describe('delay-webhook', () => {
  it('sends the next webhook late, as it stood when emitted', async () => {
    const queueId = await createQueue('Support');
    await control.fault({ fault: 'delay-webhook', event: 'call.ended', delayMs: 400 });
    const caller = await arrive(queueId);
    await expect.poll(() => of(caller.id)).toEqual(['call.received']);
    const hungUpAt = Date.now();
    await control.callerHangup(caller.id);
    await settled(queueId);
    expect(of(caller.id)).toEqual(['call.received']);
    await expect.poll(() => of(caller.id)).toEqual(['call.received', 'call.ended']);
    const ended = received.find((webhook) => webhook.callId === caller.id && webhook.event === 'call.ended');
    expect(ended?.state).toBe('finished');
    expect((ended?.at ?? 0) - hungUpAt).toBeGreaterThanOrEqual(390);
  });

  it('sends nothing late once the simulator is reset', async () => {
    const queueId = await createQueue('Support');
    await control.fault({ fault: 'delay-webhook', event: 'call.received', delayMs: 300 });
    const caller = await arrive(queueId);
    await control.reset();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(of(caller.id)).toEqual([]);
  });

  it('is refused 400 invalid_input when malformed, and arms nothing', async () => {
    const refusal = await control.fault({ fault: 'delay-webhook', event: 'call.ended', delayMs: 60_001 }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SimulatorControlError);
    expect(refusal).toMatchObject({ status: 400, code: 'invalid_input' });
    expect((await fetch(`${simulator.url}/__sim/faults`).then((r) => r.json())) as unknown).toEqual({ armed: [] });
  });
});
