/**
 * Monitor (spec 2.6 `monitor` legs, 4.8 "monitor a call"; docs/desk.md, "Supervisors and recordings") against a real
 * simulator spoken to by SIP.js in Node with werift media: `POST /calls/{id}/monitor {to}` rings the supervisor
 * agent's page with an INVITE naming the leg in `X-Call-Id` and the call in `X-Monitored-Call-Id`, whose offer is
 * `sendonly`; answered, the page hears both parties of the call mixed; the leg ends when the call ends, when the
 * supervisor hangs up, or on a hangup request. The refusals that need a call in progress are here too.
 */
import { describe, expect, it } from 'vitest';
import type { Invitation } from 'sip.js';
import { mulawToLinear } from '../../../simulator/media/g711.js';
import type { MonitorCall } from '../../../simulator/calls/monitor-leg.js';
import { peakAmplitudeAt } from '../support/audio.js';
import { waitFor } from '../support/sim-api.js';
import { talkingCall, terminated, useSipWorlds, type RegisteredWorld } from '../support/sip-world.js';
import { WeriftSessionDescriptionHandler } from '../support/werift-sdh.js';

const { registeredWorld, session, sipClient } = useSipWorlds();

type MonitorBody = { call: MonitorCall; code?: string };

/** A second agent on the same simulator, registered by its own SIP.js client with werift media: the supervisor. */
async function supervisorOf(w: RegisteredWorld): Promise<RegisteredWorld> {
  const other = await session(w);
  const client = await sipClient(other.transport, { media: 'werift' });
  expect((await client.register(client.registerer(other.transport.registrationExpiresSeconds))).statusCode).toBe(200);
  return { ...other, client };
}

const monitor = (w: RegisteredWorld, callId: string, to: string) => w.api.request<MonitorBody>('POST', `/calls/${callId}/monitor`, { to });
const readLeg = async (w: RegisteredWorld, id: string) => (await w.api.request<MonitorBody>('GET', `/calls/${id}`)).body.call;
const legIn = (w: RegisteredWorld, id: string, state: string) => waitFor(async () => ((await readLeg(w, id)).state === state ? true : undefined), `the monitor leg to be ${state}`);

/** A talking call of the agent, a registered supervisor, and the supervisor's answered monitor leg of the call. */
async function listening(options = {}): Promise<{ w: RegisteredWorld; supervisor: RegisteredWorld; callId: string; leg: MonitorCall; invitation: Invitation; sdh: WeriftSessionDescriptionHandler }> {
  const w = await registeredWorld({ toneMs: 60_000, ...options }, { media: 'werift' });
  const { callId } = await talkingCall(w);
  const supervisor = await supervisorOf(w);
  const invited = supervisor.client.nextInvitation();
  const created = await monitor(w, callId, supervisor.session.agentId);
  expect(created.status).toBe(201);
  const invitation = await invited;
  await invitation.accept();
  const sdh = invitation.sessionDescriptionHandler;
  if (!(sdh instanceof WeriftSessionDescriptionHandler)) throw new Error('expected the werift handler');
  sdh.keepAudio = true;
  await legIn(w, created.body.call.id, 'established');
  // Audio flowing proves the DTLS handshake done: a leg ended in the middle of it would leave the page's werift
  // retransmitting its ClientHello long after the test.
  await waitFor(() => (sdh.packetsReceived > 5 ? true : undefined), 'the mix to start flowing');
  return { w, supervisor, callId, leg: created.body.call, invitation, sdh };
}

describe('monitor: a listen-only leg to a supervisor agent', () => {
  it('rings the supervisor with X-Call-Id and X-Monitored-Call-Id and a sendonly offer, and sends it both parties mixed', async () => {
    const { w, supervisor, callId, leg, invitation, sdh } = await listening();
    expect(leg).toMatchObject({ kind: 'monitor', monitoredCallId: callId, agentId: supervisor.session.agentId, state: 'ringing', from: '+12025550100' });
    expect(invitation.request.getHeader('X-Call-Id')).toBe(leg.id);
    expect(invitation.request.getHeader('X-Monitored-Call-Id')).toBe(callId);
    expect(invitation.request.getHeader('X-Browser-Call-Id')).toBeUndefined();
    expect(invitation.request.body).toMatch(/^a=sendonly/m);
    expect(sdh.pc.localDescription?.sdp).toMatch(/^a=recvonly/m);

    await waitFor(() => (sdh.payloads.length > 50 ? true : undefined), 'the mix to reach the supervisor');
    const samples = sdh.payloads.flatMap((payload) => [...payload].map(mulawToLinear));
    // The agent's page sends a 400 Hz tone, the recipient plays 440 Hz: the supervisor hears both.
    expect(peakAmplitudeAt(samples, 400)).toBeGreaterThan(2000);
    expect(peakAmplitudeAt(samples, 440)).toBeGreaterThan(2000);
    expect(peakAmplitudeAt(samples, 1000)).toBeLessThan(500);
    expect(await readLeg(w, leg.id)).toMatchObject({ state: 'established', answeredAt: expect.any(String) });
    const inspected = await w.api.control<{ media: { packetsToBrowser: number; packetsFromBrowser: number } }>('GET', `/calls/${leg.id}`);
    expect(inspected.body.media.packetsToBrowser).toBeGreaterThan(50);
    expect(inspected.body.media.packetsFromBrowser).toBe(0);
    // The leg is one of the key's calls in progress.
    const active = await w.api.request<{ calls: Array<{ id: string }> }>('GET', '/calls?status=active');
    expect(active.body.calls.map((call) => call.id)).toContain(leg.id);
  });

  it('ends with the call: a BYE reaches the supervisor, and the leg is finished with call_ended', async () => {
    const { w, callId, leg, invitation } = await listening();
    expect((await w.api.hangup(callId)).status).toBe(202);
    await terminated(invitation);
    await legIn(w, leg.id, 'finished');
    expect(await readLeg(w, leg.id)).toMatchObject({ endReason: 'call_ended', endedAt: expect.any(String) });
    expect((await w.api.control<{ facts: { browserLegEnd: string } }>('GET', `/calls/${leg.id}`)).body.facts.browserLegEnd).toBe('answered');
  });

  it('the supervisor hangs up: the leg is finished, the call goes on, and the supervisor may listen again', async () => {
    const { w, supervisor, callId, leg, invitation } = await listening();
    await invitation.bye();
    await legIn(w, leg.id, 'finished');
    expect(await readLeg(w, leg.id)).toMatchObject({ endReason: 'agent_hangup' });
    expect((await w.api.call(callId)).state).toBe('connected');
    const invited = supervisor.client.nextInvitation();
    expect((await monitor(w, callId, supervisor.session.agentId)).status).toBe(201);
    await (await invited).reject();
  });

  it('a hangup request ends the leg alone: 202, a BYE to the supervisor, finished with api_hangup', async () => {
    const { w, callId, leg, invitation } = await listening();
    const hungUp = await w.api.request<MonitorBody>('POST', `/calls/${leg.id}/hangup`, {});
    expect(hungUp.status).toBe(202);
    await terminated(invitation);
    await legIn(w, leg.id, 'finished');
    expect(await readLeg(w, leg.id)).toMatchObject({ endReason: 'api_hangup' });
    expect((await w.api.call(callId)).state).toBe('connected');
  });

  it("the supervisor's session ends: so does the leg, with session_ended, and the call goes on", async () => {
    const { w, supervisor, callId, leg, invitation } = await listening();
    expect((await w.api.endSession(supervisor.session.id)).status).toBe(200);
    await terminated(invitation);
    await legIn(w, leg.id, 'finished');
    expect(await readLeg(w, leg.id)).toMatchObject({ endReason: 'session_ended' });
    expect((await w.api.call(callId)).state).toBe('connected');
  });

  it('a call that ends while the leg rings: CANCEL, and the leg is cancelled', async () => {
    const w = await registeredWorld({ toneMs: 60_000 }, { media: 'werift' });
    const { callId } = await talkingCall(w);
    const supervisor = await supervisorOf(w);
    const invited = supervisor.client.nextInvitation();
    const created = await monitor(w, callId, supervisor.session.agentId);
    const invitation = await invited;
    await w.api.hangup(callId);
    await terminated(invitation);
    await legIn(w, created.body.call.id, 'cancelled');
  });
});

describe('monitor refusals of a call in progress', () => {
  it('refuses a number, an unknown agent, an agent not registered, a busy agent and the agent of the call itself', async () => {
    const w = await registeredWorld({ toneMs: 60_000 }, { media: 'werift' });
    const { callId } = await talkingCall(w);
    const code = async (to: string) => {
      const answer = await monitor(w, callId, to);
      return `${answer.status} ${answer.body.code ?? ''}`;
    };
    expect(await code('+12025550177')).toBe('400 invalid_input');
    expect(await code('ag_nobody')).toBe('400 not_found');
    const unregistered = await session(w);
    expect(await code(unregistered.session.agentId)).toBe('409 browser_session_unavailable');
    expect(await code(w.session.agentId)).toBe('409 browser_agent_busy');
    const supervisor = await supervisorOf(w);
    const invited = supervisor.client.nextInvitation();
    expect(await code(supervisor.session.agentId)).toBe('201 ');
    await invited;
    // Ringing with one monitor leg, the supervisor takes no second, and places no call of its own.
    expect(await code(supervisor.session.agentId)).toBe('409 browser_agent_busy');
    expect((await w.api.startCall(supervisor.session.id, '+12025550100')).body.code).toBe('browser_agent_busy');
  });
});
