import { Registerer, SessionState } from 'sip.js';
import { describe, expect, it } from 'vitest';
import { sleep, waitFor } from './support/sim-api.js';
import { answeredCall, ended, terminated, useSipWorlds, type RegisteredWorld } from './support/sip-world.js';

/**
 * RFC 5626 outbound (DESIGN.md, "Calls that survive the network"): an agent that registers with `reg-id` and
 * `+sip.instance` is one agent across its sockets. Its socket closes under a call and it comes back on a new
 * one: the service's BYE goes down the new socket, and the page's own requests in the call's dialog, sent on
 * the new socket, reach the call. Without outbound, a binding lives with its socket, and the BYE has nowhere to go.
 */

const { world, sipClient } = useSipWorlds();

/** A world whose agent registered with or without outbound; calls outlive a lost socket by a minute. */
async function agent(outbound: boolean): Promise<RegisteredWorld & { registerer: Registerer }> {
  const w = await world({ mediaTimeoutMs: 60_000 });
  const client = await sipClient(w.transport);
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

describe('RFC 5626 outbound', () => {
  it('sends the BYE of a call begun on the old socket down the new one, and takes the page\'s in-dialog requests from it', async () => {
    const w = await agent(true);
    expect(w.client.ua.transport.isConnected()).toBe(true);
    const { callId, invitation } = await answeredCall(w);
    await reconnect(w);

    // The page's SIP INFO (DTMF) in the old dialog, sent on the new socket, reaches the call and is answered.
    const answered = await new Promise<number>((resolve) => {
      void invitation.info({
        requestDelegate: { onAccept: (response) => resolve(response.message.statusCode ?? 0), onReject: (response) => resolve(response.message.statusCode ?? 0) },
        requestOptions: { body: { contentDisposition: 'render', contentType: 'application/dtmf-relay', content: 'Signal=5\r\nDuration=160' } },
      });
    });
    expect(answered).toBe(200);
    expect((await w.api.facts(callId)).dtmf).toMatchObject([{ digit: '5', method: 'sip-info' }]);

    // The service's hangup: its BYE reaches the page on the new socket, and the page's 200 comes back that way.
    const hungUpAt = Date.now();
    expect((await w.api.hangup(callId)).status).toBe(202);
    await terminated(invitation);
    const call = await ended(w, callId);
    expect(call).toMatchObject({ state: 'ended', endReason: 'api_hangup', busy: false });
    expect((await w.api.facts(callId)).browserLegEnd).toBe('answered');
    // Answered, the BYE ends the call at once; unanswered it would wait out the simulator's 4 s.
    expect(Date.parse(call.endedAt ?? '') - hungUpAt).toBeLessThan(2000);
  });

  it('without it, a binding lives with its socket: the BYE has nowhere to go, and the page learns the end only by reading', async () => {
    const w = await agent(false);
    const { callId, invitation } = await answeredCall(w);
    await reconnect(w);
    expect((await w.api.hangup(callId)).status).toBe(202);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', busy: false });
    expect((await w.api.facts(callId)).browserLegEnd).toBe('unreachable');
    await sleep(300);
    expect(invitation.state).toBe(SessionState.Established);
  });
});
