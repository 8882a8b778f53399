import { describe, expect, it } from 'vitest';
import { createVoiceProxy, type ProxyUser, type VoiceProxy } from '../../../server-proxy/setup/proxy.js';
import { SIM_TEST_KEY, waitFor } from '../../simulator/support/sim-api.js';
import { talkingCall, useSipWorlds, type RegisteredWorld } from '../../simulator/support/sip-world.js';
import { send, type PageResponse } from '../support/harness.js';

/**
 * Supervisors and recordings through the proxy (docs/desk.md, "Supervisors and recordings") on a real simulator,
 * the pages being SIP.js clients with werift media: a supervisor lists and monitors the calls of the agents
 * `authenticate` gave them, the leg ringing the supervisor's own registered agent; an agent records their call
 * and downloads the WAV; every other user meets the 404 of a call or recording that does not exist.
 */

const { registeredWorld, session, sipClient } = useSipWorlds();

/** The same answer, byte for byte: status, body and every header but the request's own id and time. */
const sameAnswer = (answer: PageResponse) => ({
  status: answer.status,
  text: answer.text,
  headers: [...answer.headers].filter(([name]) => name !== 'x-request-id' && name !== 'server-timing').sort(),
});

/**
 * An agent talking on a browser call (alice), a supervisor of hers registered with their own agent (sam), a
 * supervisor of somebody else (dana) and a plain user (carl), behind one proxy on the world's simulator, whose
 * key has `perMinute` requests a minute. With `talking` false alice is on no call yet; with `queues`, sam
 * supervises the queues that array holds when he asks, instead of alice.
 */
async function desk({ perMinute = 1200, talking = true, queues }: { perMinute?: number; talking?: boolean; queues?: string[] } = {}) {
  const w = await registeredWorld({ toneMs: 60_000, quota: { perMinute } }, { media: 'werift' });
  const callId = talking ? (await talkingCall(w)).callId : '';
  const other = await session(w);
  const client = await sipClient(other.transport, { media: 'werift' });
  expect((await client.register(client.registerer(other.transport.registrationExpiresSeconds))).statusCode).toBe(200);
  const sam: RegisteredWorld = { ...other, client };
  const alice = w.session.externalSubject;
  const users: Record<string, ProxyUser> = {
    [alice]: { id: alice },
    [sam.session.externalSubject]: { id: sam.session.externalSubject, supervisor: queues ? { queues } : { agents: [alice] } },
    dana: { id: 'dana', supervisor: { agents: ['somebody-else'], queues: ['q_elsewhere'] } },
    carl: { id: 'carl' },
  };
  const proxy: VoiceProxy = createVoiceProxy({
    baseUrl: w.sim.baseUrl,
    apiKey: SIM_TEST_KEY,
    authenticate: (request) => users[request.headers.get('x-test-user') ?? ''] ?? null,
    rateLimit: false,
    logger: false,
  });
  const page = { proxy, apiKey: SIM_TEST_KEY };
  return { w, sam, callId, alice, samId: sam.session.externalSubject, page };
}

describe('a supervisor of an agent', () => {
  it('lists the agent’s call, monitors it on their own agent and reads the leg; nobody else reaches either', async () => {
    const { w, sam, callId, alice, samId, page } = await desk();
    const listed = await send(page, 'GET', '/voice/supervised-calls', { user: samId });
    expect(listed.status).toBe(200);
    expect(listed.json['calls']).toEqual([{ agent: alice, call: expect.objectContaining({ id: callId, busy: true }) }]);
    // A supervisor of others lists none of hers; a user who supervises nobody meets an unknown route.
    expect((await send(page, 'GET', '/voice/supervised-calls', { user: 'dana' })).json).toEqual({ calls: [] });
    expect(sameAnswer(await send(page, 'GET', '/voice/supervised-calls', { user: 'carl' }))).toEqual(sameAnswer(await send(page, 'GET', '/voice/no-such-route', { user: 'carl' })));

    // Another user's monitor, and the agent's own, are answered as one of a call that does not exist.
    const unknown = sameAnswer(await send(page, 'POST', '/voice/calls/bc_unknown/monitor', { user: samId, body: {} }));
    expect(JSON.parse(unknown.text)).toEqual({ error: 'no such call', code: 'not_found' });
    for (const user of ['carl', 'dana', alice]) expect(sameAnswer(await send(page, 'POST', `/voice/calls/${callId}/monitor`, { user, body: {} })), user).toEqual(unknown);
    // The proxy names the supervisor's agent itself: a `to` of the page's is refused.
    expect((await send(page, 'POST', `/voice/calls/${callId}/monitor`, { user: samId, body: { to: w.session.agentId } })).json).toMatchObject({ code: 'invalid_input' });

    const invited = sam.client.nextInvitation();
    const monitored = await send(page, 'POST', `/voice/calls/${callId}/monitor`, { user: samId, body: {} });
    expect(monitored).toMatchObject({ status: 201, json: { call: { kind: 'monitor', monitoredCallId: callId, agentId: sam.session.agentId } } });
    const legId = (monitored.json['call'] as { id: string }).id;
    const invitation = await invited;
    expect(invitation.request.getHeader('X-Monitored-Call-Id')).toBe(callId);
    expect(invitation.request.getHeader('X-Call-Id')).toBe(legId);
    await invitation.accept();
    await waitFor(async () => ((await send(page, 'GET', `/voice/calls/${legId}`, { user: samId })).json as { call?: { state?: string } }).call?.state === 'established' || undefined, 'the leg to be established');
    // A desk's proxy lists the leg among the supervisor's own calls (what reads find after monitor()'s answer was
    // lost), and among nobody else's.
    const deskProxy = createVoiceProxy({ baseUrl: w.sim.baseUrl, apiKey: SIM_TEST_KEY, authenticate: (request) => ({ id: request.headers.get('x-test-user') ?? '' }), rateLimit: false, logger: false, queues: { notifySecret: 'desk-secret', queuesFor: () => [] } });
    const deskPage = { proxy: deskProxy, apiKey: SIM_TEST_KEY };
    expect((await send(deskPage, 'GET', '/voice/calls', { user: samId })).json).toEqual({ calls: [expect.objectContaining({ id: legId, kind: 'monitor', state: 'established' })] });
    expect((await send(deskPage, 'GET', '/voice/calls', { user: alice })).json).toEqual({ calls: [] });
    await deskProxy.budget.close();

    // The leg is the supervisor's alone to read and end.
    const unknownCall = sameAnswer(await send(page, 'GET', '/voice/calls/c_unknown', { user: alice }));
    for (const user of [alice, 'carl', 'dana']) expect(sameAnswer(await send(page, 'GET', `/voice/calls/${legId}`, { user })), user).toEqual(unknownCall);
    expect((await send(page, 'POST', `/voice/calls/${legId}/hangup`, { user: samId, body: {} })).status).toBe(202);
    await waitFor(async () => ((await w.api.request<{ call: { state: string } }>('GET', `/calls/${legId}`)).body.call.state === 'finished') || undefined, 'the leg to finish');
    // The call it listened to runs on.
    expect((await w.api.call(callId)).busy).toBe(true);
  });

  it('is refused a monitor the key’s quota cannot carry beside the call, as a new call is', async () => {
    // The key's quota serves one call at once, and the supervisor's list showed the agent's call in progress.
    const { callId, samId, page } = await desk({ perMinute: 100 });
    expect((await send(page, 'GET', '/voice/supervised-calls', { user: samId })).json['calls']).toHaveLength(1);
    expect(await send(page, 'POST', `/voice/calls/${callId}/monitor`, { user: samId, body: {} })).toMatchObject({ status: 429, json: { code: 'concurrency_limit' } });
  });
});

describe('an agent recording their call', () => {
  it('starts and stops it, and downloads the WAV whole and by range; a supervisor of theirs fetches it, nobody else', async () => {
    const { w, callId, alice, samId, page } = await desk();
    const unknownCall = sameAnswer(await send(page, 'POST', '/voice/calls/bc_unknown/recordings', { user: alice, body: {} }));
    // Only the call's agent starts a recording: a supervisor of theirs is refused as another user is.
    for (const user of [samId, 'carl']) expect(sameAnswer(await send(page, 'POST', `/voice/calls/${callId}/recordings`, { user, body: {} })), user).toEqual(unknownCall);
    const started = await send(page, 'POST', `/voice/calls/${callId}/recordings`, { user: alice, body: {} });
    expect(started).toMatchObject({ status: 201, json: { recording: { callId, state: 'recording' } } });
    const id = (started.json['recording'] as { id: string }).id;
    await waitFor(async () => ((await w.api.inspect(callId)).media?.packetsToBrowser ?? 0) > 75 || undefined, 'a while of conversation');
    expect(sameAnswer(await send(page, 'POST', `/voice/calls/${callId}/recordings/${id}/stop`, { user: 'carl', body: {} }))).toEqual(unknownCall);
    const stopped = await send(page, 'POST', `/voice/calls/${callId}/recordings/${id}/stop`, { user: alice, body: {} });
    expect(stopped).toMatchObject({ status: 200, json: { recording: { id, state: 'completed' } } });
    const size = (stopped.json['recording'] as { sizeBytes: number }).sizeBytes;
    expect(size).toBeGreaterThan(44);

    // The call's recordings: its agent's and its supervisor's to list and read.
    for (const user of [alice, samId]) {
      expect((await send(page, 'GET', `/voice/recordings?callId=${callId}`, { user })).json, user).toMatchObject({ recordings: [{ id, state: 'completed' }] });
      expect((await send(page, 'GET', `/voice/recordings/${id}`, { user })).json, user).toMatchObject({ recording: { id, callId } });
    }
    expect(sameAnswer(await send(page, 'GET', `/voice/recordings?callId=${callId}`, { user: 'dana' }))).toEqual(sameAnswer(await send(page, 'GET', '/voice/recordings?callId=bc_unknown', { user: 'dana' })));
    const unknownRecording = sameAnswer(await send(page, 'GET', '/voice/recordings/rec_unknown/audio', { user: 'carl' }));
    expect(JSON.parse(unknownRecording.text)).toEqual({ error: 'no such recording', code: 'not_found' });
    for (const user of ['carl', 'dana']) {
      expect(sameAnswer(await send(page, 'GET', `/voice/recordings/${id}/audio`, { user })), user).toEqual(unknownRecording);
      expect(sameAnswer(await send(page, 'GET', `/voice/recordings/${id}`, { user })), user).toEqual(sameAnswer(await send(page, 'GET', '/voice/recordings/rec_unknown', { user })));
    }

    const download = (user: string, headers: Record<string, string> = {}) => page.proxy(new Request(`http://app.test/voice/recordings/${id}/audio`, { headers: { 'x-test-user': user, ...headers } }));
    const whole = await download(alice);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(whole.headers.get('cache-control')).toBe('no-store');
    expect(whole.headers.get('content-length')).toBe(String(size));
    const file = Buffer.from(await whole.arrayBuffer());
    expect(file.length).toBe(size);
    expect(file.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(Buffer.from(await (await download(samId)).arrayBuffer()).equals(file)).toBe(true);

    const head = await download(alice, { Range: 'bytes=0-43' });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toBe(`bytes 0-43/${size}`);
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(await head.arrayBuffer()).equals(file.subarray(0, 44))).toBe(true);
    const past = await download(alice, { Range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${size}`);
    expect(((await past.json()) as { code: string }).code).toBe('range_not_satisfiable');
  });
});

describe('a queue call', () => {
  it('is recorded by the agent a dequeue bridged it to, and listed and monitored by a supervisor of its queue', async () => {
    const queue = { name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: 'http://127.0.0.1:9/voice/queue-events', notifySecret: 'whsec_supervision_test' };
    const supervised: string[] = [];
    const { w, sam, alice, samId, page } = await desk({ talking: false, queues: supervised });
    const queueId = (await w.api.request<{ queue: { id: string } }>('POST', '/queues', queue)).body.queue.id;
    supervised.push(queueId);
    const caller = (await w.api.control<{ call: { id: string } }>('POST', '/inbound', { queueId, from: '+12025550121', to: '+12025550150' })).body.call.id;
    const invited = w.client.nextInvitation();
    expect((await w.api.request('POST', `/queues/${queueId}/dequeue`, { connectTo: w.session.agentId })).status).toBe(200);
    await (await invited).accept();
    await waitFor(async () => ((await w.api.request<{ call: { state: string } }>('GET', `/calls/${caller}`)).body.call.state === 'established') || undefined, 'the caller to be bridged');

    const unknownCall = sameAnswer(await send(page, 'POST', '/voice/calls/c_unknown/recordings', { user: alice, body: {} }));
    expect(sameAnswer(await send(page, 'POST', `/voice/calls/${caller}/recordings`, { user: 'carl', body: {} }))).toEqual(unknownCall);
    expect(await send(page, 'POST', `/voice/calls/${caller}/recordings`, { user: alice, body: {} })).toMatchObject({ status: 201, json: { recording: { callId: caller, state: 'recording' } } });

    // Sam supervises the queue, not alice: the call is listed with no agent of his, and he listens in.
    expect((await send(page, 'GET', '/voice/supervised-calls', { user: samId })).json).toEqual({ calls: [{ agent: null, call: expect.objectContaining({ id: caller, state: 'established' }) }] });
    expect(sameAnswer(await send(page, 'POST', `/voice/calls/${caller}/monitor`, { user: 'dana', body: {} }))).toEqual(sameAnswer(await send(page, 'POST', '/voice/calls/c_unknown/monitor', { user: 'dana', body: {} })));
    const ringing = sam.client.nextInvitation();
    expect(await send(page, 'POST', `/voice/calls/${caller}/monitor`, { user: samId, body: {} })).toMatchObject({ status: 201, json: { call: { kind: 'monitor', monitoredCallId: caller, agentId: sam.session.agentId } } });
    expect((await ringing).request.getHeader('X-Monitored-Call-Id')).toBe(caller);
    expect((await send(page, 'GET', `/voice/recordings?callId=${caller}`, { user: samId })).json).toMatchObject({ recordings: [{ callId: caller }] });
  });
});
