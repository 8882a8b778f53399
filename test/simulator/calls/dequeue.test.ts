/**
 * Dequeue (spec 3.1, 4.8; docs/desk.md) against a real simulator spoken to by SIP.js in Node: the
 * head caller is claimed first in, first out, `dequeuing`, and rings the agent's registration with an INVITE
 * carrying `X-Call-Id`; answered, it is `established` and audio flows both ways (the caller's tone and echo,
 * the agent's DTMF heard); either side's hangup ends it `finished`; an agent that does not answer in time puts
 * the caller back at the head. Timings are shortened through the simulator's options.
 */
import { describe, expect, it } from 'vitest';
import type { Invitation } from 'sip.js';
import type { QueueCall } from '../../../simulator/service/model.js';
import { waitFor } from '../support/sim-api.js';
import { terminated, useSipWorlds, type RegisteredWorld, type World } from '../support/sip-world.js';
import { WeriftSessionDescriptionHandler } from '../support/werift-sdh.js';

const { registeredWorld, world, session, sipClient } = useSipWorlds();

type CallBody = { call: QueueCall; code?: string };

/** A queue of the world's key; its webhooks go to a closed loopback port (delivery is tested in queues.test.ts). */
async function queueOf(w: Pick<World, 'api'>, name = 'Support'): Promise<string> {
  const created = await w.api.request<{ queue: { id: string } }>('POST', '/queues', { name, holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: 'http://127.0.0.1:9/voice/queue-events' });
  expect(created.status).toBe(201);
  return created.body.queue.id;
}

async function arrive(w: Pick<World, 'api'>, queueId: string, from: string): Promise<QueueCall> {
  const arrived = await w.api.control<CallBody>('POST', '/inbound', { queueId, from, to: '+12025550150' });
  expect(arrived.status).toBe(201);
  return arrived.body.call;
}

const dequeue = (w: Pick<World, 'api'>, queueId: string, connectTo: string) => w.api.request<CallBody>('POST', `/queues/${queueId}/dequeue`, { connectTo });
const read = async (w: Pick<World, 'api'>, id: string) => (await w.api.request<CallBody>('GET', `/calls/${id}`)).body.call;
const waitForState = (w: Pick<World, 'api'>, id: string, state: string) =>
  waitFor(async () => ((await read(w, id)).state === state ? true : undefined), `call ${id} to be ${state}`);

/** Dequeues the head caller to the world's agent; answers the claimed call and the INVITE it rang the agent with. */
async function claim(w: RegisteredWorld, queueId: string): Promise<{ call: QueueCall; invitation: Invitation }> {
  const invited = w.client.nextInvitation();
  const claimed = await dequeue(w, queueId, w.session.agentId);
  expect(claimed.status).toBe(200);
  return { call: claimed.body.call, invitation: await invited };
}

describe('dequeue: first in, first out, to the agent named by connectTo', () => {
  it('claims the head caller, rings the agent with X-Call-Id, and is established once the page answers', async () => {
    const w = await registeredWorld();
    const queueId = await queueOf(w);
    const first = await arrive(w, queueId, '+12025550121');
    const second = await arrive(w, queueId, '+12025550122');

    const { call, invitation } = await claim(w, queueId);
    expect(call).toMatchObject({ id: first.id, state: 'dequeuing', agentId: w.session.agentId });
    expect(invitation.request.getHeader('X-Call-Id')).toBe(first.id);
    expect(invitation.request.getHeader('X-Browser-Call-Id')).toBeUndefined();
    expect(invitation.request.from.uri.user).toBe('12025550121');

    await invitation.accept();
    await waitForState(w, first.id, 'established');
    expect(await read(w, first.id)).toMatchObject({ agentId: w.session.agentId, answeredAt: expect.any(String) });
    // The second caller still waits, and is the head now.
    expect(await read(w, second.id)).toMatchObject({ state: 'queued', agentId: null });
  });

  it('carries the caller\'s tone and echo to the agent and the agent\'s audio and DTMF to the caller', async () => {
    const w = await registeredWorld({}, { media: 'werift' });
    const queueId = await queueOf(w);
    const caller = await arrive(w, queueId, '+12025550123');
    const { invitation } = await claim(w, queueId);
    await invitation.accept();
    const sdh = invitation.sessionDescriptionHandler;
    if (!(sdh instanceof WeriftSessionDescriptionHandler)) throw new Error('expected the werift handler');
    await waitFor(() => (sdh.pc.connectionState === 'connected' ? true : undefined), 'media to connect on loopback');
    sdh.startAudio();
    await waitFor(() => (sdh.packetsReceived > 25 ? true : undefined), "the caller's audio to reach the agent");
    const inspect = () => w.api.control<{ media: { packetsFromBrowser: number } | null; facts: { dtmf: Array<{ digit: string }> } }>('GET', `/calls/${caller.id}`);
    await waitFor(async () => (((await inspect()).body.media?.packetsFromBrowser ?? 0) > 25 ? true : undefined), "the agent's audio to reach the caller");
    expect(sdh.sendDtmf('7')).toBe(true);
    await waitFor(async () => ((await inspect()).body.facts.dtmf.some((heard) => heard.digit === '7') ? true : undefined), 'the digit to reach the caller');
  });

  it('the agent hangs up: finished, and the agent is free to take the next caller', async () => {
    const w = await registeredWorld();
    const queueId = await queueOf(w);
    const first = await arrive(w, queueId, '+12025550121');
    const second = await arrive(w, queueId, '+12025550122');
    const { invitation } = await claim(w, queueId);
    await invitation.accept();
    await waitForState(w, first.id, 'established');

    // Busy with the caller: neither another caller nor a browser call of its own.
    expect((await dequeue(w, queueId, w.session.agentId)).body.code).toBe('browser_agent_busy');
    expect((await w.api.startCall(w.session.id, '+12025550100')).body.code).toBe('browser_agent_busy');

    await invitation.bye();
    await waitForState(w, first.id, 'finished');
    expect(await read(w, first.id)).toMatchObject({ endedAt: expect.any(String), agentId: w.session.agentId });
    const next = await claim(w, queueId);
    expect(next.call.id).toBe(second.id);
  });

  it('the caller hangs up while talking, and the API hangs up: a BYE reaches the agent, finished once it is down', async () => {
    const w = await registeredWorld();
    const queueId = await queueOf(w);
    const first = await arrive(w, queueId, '+12025550121');
    const second = await arrive(w, queueId, '+12025550122');

    const one = await claim(w, queueId);
    await one.invitation.accept();
    await waitForState(w, first.id, 'established');
    expect((await w.api.control('POST', `/inbound/${first.id}/hangup`)).status).toBe(202);
    await terminated(one.invitation);
    await waitForState(w, first.id, 'finished');

    const two = await claim(w, queueId);
    await two.invitation.accept();
    await waitForState(w, second.id, 'established');
    const hungUp = await w.api.request<CallBody>('POST', `/calls/${second.id}/hangup`, {});
    expect(hungUp.status).toBe(202);
    await terminated(two.invitation);
    await waitForState(w, second.id, 'finished');
    expect((await w.api.control<{ facts: { browserLegEnd: string } }>('GET', `/calls/${second.id}`)).body.facts.browserLegEnd).toBe('answered');
  });

  it('an agent that does not answer in time: CANCEL, and the caller is back at the head for the next dequeue', async () => {
    const w = await registeredWorld({ queueAnswerTimeoutMs: 400 });
    const queueId = await queueOf(w);
    const first = await arrive(w, queueId, '+12025550121');
    await arrive(w, queueId, '+12025550122');
    const { invitation } = await claim(w, queueId);
    await terminated(invitation);
    await waitForState(w, first.id, 'queued');
    // Still named with the agent it rang; the next dequeue claims the same caller first.
    expect(await read(w, first.id)).toMatchObject({ agentId: w.session.agentId, endedAt: null });
    const again = await claim(w, queueId);
    expect(again.call.id).toBe(first.id);
    const facts = (await w.api.control<{ facts: { history: Array<{ state: string }>; browserFinalStatus: number } }>('GET', `/calls/${first.id}`)).body.facts;
    expect(facts.history.map((entry) => entry.state)).toEqual(['queued', 'dequeuing', 'queued', 'dequeuing']);
    expect(facts.browserFinalStatus).toBe(487);
  });

  it('an agent that refuses the INVITE puts the caller back at the head too', async () => {
    const w = await registeredWorld();
    const queueId = await queueOf(w);
    const caller = await arrive(w, queueId, '+12025550121');
    const { invitation } = await claim(w, queueId);
    await invitation.reject({ statusCode: 486 });
    await waitForState(w, caller.id, 'queued');
  });

  it('the end of the agent\'s session hangs up the caller it took', async () => {
    const w = await registeredWorld();
    const queueId = await queueOf(w);
    const caller = await arrive(w, queueId, '+12025550121');
    const { invitation } = await claim(w, queueId);
    await invitation.accept();
    await waitForState(w, caller.id, 'established');
    expect((await w.api.endSession(w.session.id)).status).toBe(200);
    await terminated(invitation);
    await waitForState(w, caller.id, 'finished');
  });

  it('refuses with the codes docs/simulator.md names, and moves nobody', async () => {
    const w = await world();
    const queueId = await queueOf(w);
    const other = await session(w);
    const client = await sipClient(other.transport);
    await client.register(client.registerer(other.transport.registrationExpiresSeconds));
    expect(await dequeue(w, queueId, other.session.agentId)).toMatchObject({ status: 409, body: { code: 'queue_empty' } });
    const caller = await arrive(w, queueId, '+12025550121');
    // The agent has a session but no registration: the caller stays at the head.
    expect(await dequeue(w, queueId, w.session.agentId)).toMatchObject({ status: 409, body: { code: 'browser_session_unavailable' } });
    expect(await read(w, caller.id)).toMatchObject({ state: 'queued', agentId: null });
    expect(await dequeue(w, 'q_unknown', w.session.agentId)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await dequeue(w, queueId, 'ag_unknown')).toMatchObject({ status: 400, body: { code: 'not_found' } });
    expect((await w.api.request<CallBody>('POST', `/queues/${queueId}/dequeue`, {})).body.code).toBe('missing_fields');

    // The registered agent takes the caller who waited.
    const invited = client.nextInvitation();
    expect((await dequeue(w, queueId, other.session.agentId)).body.call).toMatchObject({ id: caller.id, agentId: other.session.agentId });
    expect((await invited).request.getHeader('X-Call-Id')).toBe(caller.id);
  });
});
