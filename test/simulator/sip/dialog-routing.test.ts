import { Registerer, SessionState, type Invitation } from 'sip.js';
import { describe, expect, it } from 'vitest';
import { sleep, waitFor } from '../support/sim-api.js';
import { answeredCall, ended, talkingCall, terminated, useSipWorlds, type RegisteredWorld } from '../support/sip-world.js';

/**
 * In-dialog routing as real edges do it (RFC 3261 section 12.2.1.1; Kamailio's `add_contact_alias()` and
 * `handle_ruri_alias()` for WebSocket clients): what the service sends in a call's dialog goes down the flow the
 * page's latest target for that dialog came on, not to the agent's newest socket, with RFC 5626 outbound or
 * without it. After a reconnect, the page's own requests in the dialog reach the call from its new socket; the
 * service's reach the page only once a target refresh (a re-INVITE) came on that socket. Before, they fail as at
 * a real edge: `477 Send Failed`.
 */

const { world, sipClient, registeredWorld } = useSipWorlds();

/** A world whose agent registered with or without outbound; calls outlive a lost socket by a minute. */
async function agent(outbound: boolean, media: 'fake' | 'werift' = 'fake'): Promise<RegisteredWorld & { registerer: Registerer }> {
  const w = await world({ mediaTimeoutMs: 60_000 });
  const client = await sipClient(w.transport, { media });
  const registerer = new Registerer(client.ua, { expires: w.transport.registrationExpiresSeconds, ...(outbound ? { regId: 1 } : {}) });
  expect((await client.register(registerer)).statusCode).toBe(200);
  return { ...w, client, registerer };
}

/** The simulator drops the page's socket; the page opens a new one and registers again on it. */
async function reconnect(w: RegisteredWorld & { registerer: Registerer }): Promise<void> {
  w.sim.service.closeSipSockets(w.session.id);
  await waitFor(() => (w.client.ua.transport.isConnected() ? undefined : true), 'the page to see its socket close');
  await w.client.ua.reconnect();
  expect((await w.client.register(w.registerer)).statusCode).toBe(200);
}

/** A request of the page in the call's dialog, resolving with its final status. */
function inDialog(invitation: Invitation, method: 'info' | 'invite'): Promise<number> {
  return new Promise<number>((resolve) => {
    const requestDelegate = { onAccept: (response: { message: { statusCode?: number } }) => resolve(response.message.statusCode ?? 0), onReject: (response: { message: { statusCode?: number } }) => resolve(response.message.statusCode ?? 0) };
    if (method === 'invite') void invitation.invite({ requestDelegate });
    else void invitation.info({ requestDelegate, requestOptions: { body: { contentDisposition: 'render', contentType: 'application/dtmf-relay', content: 'Signal=5\r\nDuration=160' } } });
  });
}

describe('in-dialog routing by the dialog\'s target', () => {
  for (const outbound of [true, false]) {
    it(`${outbound ? 'with' : 'without'} outbound, sends the service's requests down the dead flow after a reconnect: 477, the BYE unreachable; the page's INFO still reaches the call`, async () => {
      const w = await agent(outbound);
      const { callId, invitation } = await answeredCall(w);
      await reconnect(w);

      // The page's SIP INFO (DTMF) in the old dialog, sent on the new socket, reaches the call and is answered.
      expect(await inDialog(invitation, 'info')).toBe(200);
      expect((await w.api.facts(callId)).dtmf).toMatchObject([{ digit: '5', method: 'sip-info' }]);

      // The service's REFER goes to the dialog's target, on the socket that died: the edge answers it 477.
      expect(await w.sim.service.refer(callId, 'sip:+12025550100@voice.invalid')).toBe(477);

      // Its hangup: the BYE has nowhere to go, and the page learns the end only by reading.
      expect((await w.api.hangup(callId)).status).toBe(202);
      expect(await ended(w, callId)).toMatchObject({ state: 'ended', busy: false });
      expect((await w.api.facts(callId)).browserLegEnd).toBe('unreachable');
      await sleep(300);
      expect(invitation.state).toBe(SessionState.Established);
    });
  }

  it('after the page refreshes its target with a re-INVITE on the new socket, the service\'s BYE goes down that socket and is answered', async () => {
    const w = await agent(true, 'werift');
    const { callId, invitation } = await talkingCall(w);
    await reconnect(w);
    expect(await inDialog(invitation, 'invite')).toBe(200);
    expect((await w.api.facts(callId)).reinvites).toBe(1);

    const hungUpAt = Date.now();
    expect((await w.api.hangup(callId)).status).toBe(202);
    await terminated(invitation);
    const call = await ended(w, callId);
    expect(call).toMatchObject({ state: 'ended', endReason: 'api_hangup', busy: false });
    expect((await w.api.facts(callId)).browserLegEnd).toBe('answered');
    // Answered, the BYE ends the call at once; unanswered it would wait out the simulator's 4 s.
    expect(Date.parse(call.endedAt ?? '') - hungUpAt).toBeLessThan(2000);
  });

  it('keeps a dialog on the socket its target came on while a newer socket of the same agent is open', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await answeredCall(w);
    // A second socket of the same credentials registers: it is now the agent's binding, the newest flow.
    const second = await sipClient(w.transport);
    expect((await second.register(second.registerer(w.transport.registrationExpiresSeconds))).statusCode).toBe(200);
    // The BYE still goes to the dialog's target, the first socket, which answers it.
    expect((await w.api.hangup(callId)).status).toBe(202);
    await terminated(invitation);
    expect((await w.api.facts(callId)).browserLegEnd).toBe('answered');
  });
});
