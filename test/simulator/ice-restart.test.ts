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

    const reinvite = (iceRestart: boolean) =>
      new Promise<number>((resolve) => {
        void invitation.invite({
          sessionDescriptionHandlerOptions: { offerOptions: { iceRestart } } as object,
          requestDelegate: { onAccept: (response) => resolve(response.message.statusCode ?? 0), onReject: (response) => resolve(response.message.statusCode ?? 0) },
        });
      });
    const ufrag = (sdp: string | undefined) => /a=ice-ufrag:(\S+)/.exec(sdp ?? '')?.[1];

    // As the page does (lib/media-path.ts: up to three restarts), a restart whose checks fail is followed by
    // another: two werift peers in one process starved of CPU by the rest of the suite can let one fail.
    let restarts = 0;
    let flowing = false;
    while (!flowing && restarts < 3) {
      const before = sdh.pc.remoteDescription?.sdp;
      expect(await reinvite(true)).toBe(200);
      restarts++;
      expect(ufrag(sdh.pc.remoteDescription?.sdp)).not.toBe(ufrag(before));
      const [page, sim] = [await fromPage(), sdh.packetsReceived];
      flowing = await waitFor(async () => ((await fromPage()) > page + 50 && sdh.packetsReceived > sim + 50 ? true : undefined), 'audio both ways on the new ICE generation', 10_000).catch(() => false);
    }
    expect(flowing).toBe(true);
    // A re-INVITE that keeps the ICE credentials (a plain refresh of the offer) is answered, not counted as a restart.
    expect(await reinvite(false)).toBe(200);
    const { call, facts } = await w.api.inspect(callId);
    expect(call).toMatchObject({ id: callId, state: 'connected', busy: true });
    expect(facts).toMatchObject({ reinvites: restarts + 1, iceRestarts: restarts });
    sdh.stopAudio();
    expect((await w.api.hangup(callId)).status).toBe(202);
  }, 60_000);
});
