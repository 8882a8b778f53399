import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifySignature } from '../../../contract/queue-webhook.js';
import { createControlApp } from '../../../simulator/http/control.js';
import { FaultPlan } from '../../../simulator/service/faults.js';
import { DEFAULT_QUOTA } from '../../../simulator/http/rate-limit.js';
import { KEYS, RestWorld } from '../http/rest-support.js';

/**
 * Queues and their inbound callers (spec 4.8, 3.1) with the queue webhook (spec 6.1, docs/desk.md):
 * a queue made and listed under its key, its secret never answered; a caller arriving by the control API waits
 * `queued` and `call.received` reaches the queue's `notifyUrl` (a real server on 127.0.0.1), sorted and signed;
 * a hangup either side ends it `finished` with `call.ended`.
 */

interface Received {
  raw: string;
  signature: string | undefined;
}

const SECRET = 'whsec_queue_test';

describe('queues and inbound callers', () => {
  const world = new RestWorld();
  const control = new Hono().route(
    '/__sim',
    createControlApp({ service: world.service, faults: new FaultPlan(), registry: world.registry, defaultQuota: DEFAULT_QUOTA, forget: () => undefined }),
  );
  const received: Received[] = [];
  let receiver: Server;
  let notifyUrl = '';

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ raw, signature: request.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/voice/queue-events`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await world.close();
  });

  const createQueue = (body: Record<string, unknown>, key: string = KEYS.main) => world.send({ key, path: '/queues', body: { name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl, ...body } });
  const arrive = async (queueId: string) => {
    const response = await control.request('/__sim/inbound', { method: 'POST', body: JSON.stringify({ queueId, from: '+12025550123', to: '+12025550150' }) });
    return { status: response.status, body: (await response.json()) as { call: { id: string; state: string } } };
  };
  const delivered = async (count: number) => {
    await expect.poll(() => received.length).toBeGreaterThanOrEqual(count);
    return received[count - 1] as Received;
  };

  it('creates a queue under its key and never answers its secret', async () => {
    const created = await createQueue({ notifySecret: SECRET });
    expect(created.status).toBe(201);
    expect(created.json['queue']).toEqual({ id: expect.stringMatching(/^q_/), name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl, createdAt: expect.any(String) });
    expect(created.text).not.toContain(SECRET);
    const listed = await world.send({ path: '/queues' });
    expect((listed.json['queues'] as unknown[]).length).toBeGreaterThanOrEqual(1);
    expect(listed.text).not.toContain(SECRET);
    // Another key, even of the same account, sees none of it (spec 4.7).
    expect((await world.send({ key: KEYS.sibling, path: '/queues' })).json['queues']).toEqual([]);
  });

  it('refuses a queue with a bad name or URL, or a notifyUrl beyond loopback, with the spec 7 codes', async () => {
    expect((await createQueue({ name: undefined })).json['code']).toBe('missing_name');
    expect((await createQueue({ name: 'x'.repeat(256) })).json['code']).toBe('name_too_long');
    expect((await createQueue({ notifyUrl: 'not a url' })).json['code']).toBe('invalid_url');
    expect((await createQueue({ holdAudioUrl: 'ftp://example.test/hold.mp3' })).json['code']).toBe('invalid_url_scheme');
    expect((await createQueue({ notifyUrl: 'https://hooks.example.test/voice' })).json).toMatchObject({ code: 'unsafe_url' });
    expect((await world.send({ key: KEYS.readOnly, path: '/queues', body: { name: 'x', holdAudioUrl: notifyUrl, notifyUrl } })).status).toBe(403);
  });

  it('queues an arriving caller and posts call.received: sorted keys, signed over the exact raw body', async () => {
    const queueId = ((await createQueue({ notifySecret: SECRET })).json['queue'] as { id: string }).id;
    const before = received.length;
    const { status, body } = await arrive(queueId);
    expect(status).toBe(201);
    expect(body.call).toMatchObject({ id: expect.stringMatching(/^c_/), direction: 'inbound', queueId, state: 'queued', from: '+12025550123', to: '+12025550150' });

    const webhook = await delivered(before + 1);
    expect(webhook.raw).toBe(JSON.stringify({ callId: body.call.id, event: 'call.received', from: '+12025550123', queueId, state: 'queued', to: '+12025550150' }));
    expect(verifySignature(webhook.raw, webhook.signature, SECRET)).toBe(true);

    const read = await world.send({ path: `/calls/${body.call.id}` });
    expect(read.json['call']).toMatchObject({ id: body.call.id, state: 'queued' });
    const active = await world.send({ path: '/calls?status=active' });
    expect((active.json['calls'] as Array<{ id: string }>).map((call) => call.id)).toContain(body.call.id);
  });

  it('sends no signature header for a queue without a secret', async () => {
    const queueId = ((await createQueue({})).json['queue'] as { id: string }).id;
    const before = received.length;
    await arrive(queueId);
    expect((await delivered(before + 1)).signature).toBeUndefined();
  });

  it('ends a call by hangup (202, finished, call.ended), answers it again as it is, and drops it from the active list', async () => {
    const queueId = ((await createQueue({ notifySecret: SECRET })).json['queue'] as { id: string }).id;
    const start = received.length;
    const { body } = await arrive(queueId);
    // call.received first: what follows the hangup is the next one.
    await delivered(start + 1);
    const before = start + 1;
    const hungUp = await world.send({ path: `/calls/${body.call.id}/hangup`, body: {} });
    expect(hungUp.status).toBe(202);
    expect(hungUp.json['call']).toMatchObject({ state: 'finished', endedAt: expect.any(String) });
    const webhook = await delivered(before + 1);
    expect(JSON.parse(webhook.raw)).toMatchObject({ event: 'call.ended', callId: body.call.id, state: 'finished' });

    expect((await world.send({ path: `/calls/${body.call.id}/hangup`, body: {} })).json['call']).toMatchObject({ state: 'finished' });
    const active = await world.send({ path: '/calls?status=active' });
    expect((active.json['calls'] as Array<{ id: string }>).map((call) => call.id)).not.toContain(body.call.id);
    expect(received.length).toBe(before + 1);
  });

  it('lets the caller hang up while queued (control API): finished, call.ended', async () => {
    const queueId = ((await createQueue({})).json['queue'] as { id: string }).id;
    const start = received.length;
    const { body } = await arrive(queueId);
    await delivered(start + 1);
    const before = start + 1;
    const response = await control.request(`/__sim/inbound/${body.call.id}/hangup`, { method: 'POST' });
    expect(response.status).toBe(202);
    expect(JSON.parse((await delivered(before + 1)).raw)).toMatchObject({ event: 'call.ended', state: 'finished' });
  });

  it("answers another key's call, an unknown call, an unknown queue and a bad filter with the spec codes", async () => {
    const queueId = ((await createQueue({})).json['queue'] as { id: string }).id;
    const { body } = await arrive(queueId);
    expect((await world.send({ key: KEYS.sibling, path: `/calls/${body.call.id}` })).status).toBe(404);
    expect((await world.send({ path: '/calls/c_nope' })).json['code']).toBe('not_found');
    expect((await arrive('q_nope')).status).toBe(404);
    expect((await world.send({ path: '/calls?status=ringing' })).json['code']).toBe('invalid_input');
    const badCaller = await control.request('/__sim/inbound', { method: 'POST', body: JSON.stringify({ queueId, from: '12345', to: '+12025550150' }) });
    expect(badCaller.status).toBe(400);
  });
});

describe('a caller sent to a queue by its name', () => {
  const world = new RestWorld();
  const control = new Hono().route('/__sim', createControlApp({ service: world.service, faults: new FaultPlan(), registry: world.registry, defaultQuota: DEFAULT_QUOTA, forget: () => undefined }));
  afterAll(() => world.close());

  // The webhook's address is never reached here: nobody waits for it.
  const createQueue = async (name: string, key: string = KEYS.main) =>
    ((await world.send({ key, path: '/queues', body: { name, holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: 'http://127.0.0.1:9/voice/queue-events' } })).json['queue'] as { id: string }).id;
  const arrive = async (body: Record<string, unknown>) => {
    const response = await control.request('/__sim/inbound', { method: 'POST', body: JSON.stringify({ from: '+12025550123', to: '+12025550150', ...body }) });
    return { status: response.status, body: (await response.json()) as { call?: { queueId: string }; code?: string; error?: string } };
  };

  it('reaches the queue of that name, as queueId or as queue; an unknown name is a 404 naming the queues there are', async () => {
    const support = await createQueue('Support');
    const sales = await createQueue('Sales');
    expect(await arrive({ queueId: 'Support' })).toMatchObject({ status: 201, body: { call: { queueId: support } } });
    expect(await arrive({ queue: 'Sales' })).toMatchObject({ status: 201, body: { call: { queueId: sales } } });
    expect(await arrive({ queueId: sales })).toMatchObject({ status: 201, body: { call: { queueId: sales } } });
    expect(await arrive({ queue: 'Billing' })).toEqual({ status: 404, body: { code: 'not_found', error: `no such queue "Billing"; the queues are Support (${support}), Sales (${sales})` } });
  });

  it('refuses both or neither of queueId and queue, and a name two queues share, naming their ids', async () => {
    expect(await arrive({})).toMatchObject({ status: 400, body: { code: 'invalid_input', error: expect.stringMatching(/^queueId: give the queue as queueId/) } });
    expect(await arrive({ queueId: 'Support', queue: 'Support' })).toMatchObject({ status: 400, body: { code: 'invalid_input' } });
    const first = await createQueue('Twice');
    const second = await createQueue('Twice', KEYS.sibling);
    expect(await arrive({ queue: 'Twice' })).toEqual({ status: 409, body: { code: 'queue_ambiguous', error: `2 queues are named "Twice" (${first}, ${second}); name one by its id` } });
  });
});
