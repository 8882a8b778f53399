import { SessionState } from 'sip.js';
import { describe, expect, it } from 'vitest';
import { createSimulatorControl } from '../../../../simulator/http/control-client.js';
import { RawSip } from '../../support/raw-sip.js';
import { waitFor } from '../../support/sim-api.js';
import { ended, talkingCall, useSipWorlds } from '../../support/sip-world.js';

/**
 * An edge restart (docs/simulator.md, "Edge profiles"), as a restart or an HA switch-over of a real edge looks
 * from the page: every SIP socket drops at once with no closing handshake, new WebSockets are refused until the
 * edge is back, the bindings of the dropped sockets are gone, and calls' media, which never went through the
 * edge, goes on.
 */

const { registeredWorld } = useSipWorlds();

describe('an edge restart', () => {
  it('drops every socket at once with the registrations, refuses new sockets meanwhile, and the call keeps its audio', async () => {
    const w = await registeredWorld({ mediaTimeoutMs: 60_000 }, { media: 'werift' });
    const { callId, invitation, fromPage } = await talkingCall(w);
    const control = createSimulatorControl(w.sim.url);
    // Long enough that a busy machine still tries a socket while the edge is away.
    const restarting = await control.restartEdge(5);
    expect(restarting.restartingUntil).not.toBeNull();
    await expect(RawSip.open(w.transport)).rejects.toThrow('upgrade refused 503');
    await waitFor(() => (w.client.ua.transport.isConnected() ? undefined : true), 'the page to see its socket drop');
    expect((await control.registration(w.session.id)).registered).toBe(false);

    const before = await fromPage();
    await waitFor(async () => ((await fromPage()) > before + 25 ? true : undefined), 'the page audio to go on');
    expect((await w.api.call(callId)).state).toBe('connected');
    expect(invitation.state).toBe(SessionState.Established);

    await waitFor(async () => ((await control.edge()).restartingUntil === null ? true : undefined), 'the edge to be back');
    await w.client.ua.reconnect();
    expect((await w.client.register(w.client.registerer(w.transport.registrationExpiresSeconds))).statusCode).toBe(200);
    expect((await w.api.hangup(callId)).status).toBe(202);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', busy: false });
    // No target refresh came on the new socket: the BYE went down the flow that dropped.
    expect((await w.api.facts(callId)).browserLegEnd).toBe('unreachable');
  });
});
