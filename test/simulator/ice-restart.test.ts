import { describe, expect, it } from 'vitest';
import { waitFor } from './support/sim-api.js';
import { talkingCall, useSipWorlds } from './support/sip-world.js';

/**
 * The simulator answers a re-INVITE that restarts ICE (DESIGN.md, "Calls that survive the network"): the page
 * offers new ICE credentials in the call's dialog, the simulator's werift answers with its own, both sides run
 * new checks on the same sockets, and the same call carries audio on; `GET /__sim/calls/:id` counts it. The
 * restart in the middle of a blackhole is proven with Chromium (e2e/media-blackhole.spec.ts): between two werift
 * peers, checks sent into the blackhole stayed stuck after it.
 */

const { registeredWorld } = useSipWorlds();

describe('a re-INVITE with an ICE restart', () => {
  it('is answered with new ICE credentials, counted, and the same call carries audio again', async () => {
    const w = await registeredWorld({}, { media: 'werift' });
    const { callId, invitation, sdh, fromPage } = await talkingCall(w);
    const firstAnswer = sdh.pc.remoteDescription?.sdp ?? '';

    const reinvite = (iceRestart: boolean) =>
      new Promise<number>((resolve) => {
        void invitation.invite({
          sessionDescriptionHandlerOptions: { offerOptions: { iceRestart } } as object,
          requestDelegate: { onAccept: (response) => resolve(response.message.statusCode ?? 0), onReject: (response) => resolve(response.message.statusCode ?? 0) },
        });
      });
    const ufrag = (sdp: string | undefined) => /a=ice-ufrag:(\S+)/.exec(sdp ?? '')?.[1];

    expect(await reinvite(true)).toBe(200);
    expect(ufrag(sdh.pc.remoteDescription?.sdp)).not.toBe(ufrag(firstAnswer));
    const [page, sim] = [await fromPage(), sdh.packetsReceived];
    await waitFor(async () => ((await fromPage()) > page + 50 ? true : undefined), 'the page audio to flow on the new ICE generation');
    await waitFor(() => (sdh.packetsReceived > sim + 50 ? true : undefined), 'the simulator audio to flow on the new ICE generation');

    // A re-INVITE that keeps the ICE credentials (a plain refresh of the offer) is answered, not counted as a restart.
    expect(await reinvite(false)).toBe(200);
    const { call, facts } = await w.api.inspect(callId);
    expect(call).toMatchObject({ id: callId, state: 'connected', busy: true });
    expect(facts).toMatchObject({ reinvites: 2, iceRestarts: 1 });
    sdh.stopAudio();
    expect((await w.api.hangup(callId)).status).toBe(202);
  });
});
