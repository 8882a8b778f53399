import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/sim-api.js';
import type { WeriftSessionDescriptionHandler } from '../support/werift-sdh.js';
import { talkingCall, useSipWorlds } from '../support/sip-world.js';

/**
 * The `media-blackhole` fault (docs/simulator.md): a call's media path drops every
 * packet both ways for `ms`, then carries them again, on the same call. A SIP.js agent in Node answers with
 * werift on loopback and sends a microphone's PCMU; both sides count what arrives.
 */

const { registeredWorld } = useSipWorlds();

/**
 * Long enough for the checks inside it, which take a few dozen of the page's packets, however slowly a busy
 * machine sends them.
 */
const BLACKHOLE_MS = 3000;

/** Resolves once the page has sent `n` more packets of its microphone. */
const pageSends = (sdh: WeriftSessionDescriptionHandler, n: number) => {
  const from = sdh.packetsSent;
  return waitFor(() => (sdh.packetsSent >= from + n ? true : undefined), `${n} more packets from the page`);
};

describe('media-blackhole', () => {
  it('stops the audio both ways for its length, then lets it flow again on the same call', async () => {
    const w = await registeredWorld({}, { media: 'werift' });
    const { callId, sdh, fromPage } = await talkingCall(w);

    const armed = await fetch(`${w.sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/api/v1/voice/browser-calls/:id', fault: 'media-blackhole', ms: BLACKHOLE_MS, callId }),
    });
    expect(armed.status).toBe(201);
    expect((await w.api.request('GET', `/browser-calls/${callId}`)).status).toBe(200);

    // The page's own packets are the test's clock: a few first, for what was already on the wire to land (the
    // simulator, the page and this test share one event loop, which turns at least once per packet), then more,
    // inside the blackhole, in which neither side counts a packet.
    await pageSends(sdh, 10);
    const [simBefore, pageBefore] = [await fromPage(), sdh.packetsReceived];
    await pageSends(sdh, 25);
    expect(await fromPage()).toBe(simBefore);
    expect(sdh.packetsReceived).toBe(pageBefore);

    // After it, the same call carries audio again both ways.
    await waitFor(async () => ((await fromPage()) > simBefore + 25 ? true : undefined), 'the page audio to flow again', 30_000);
    await waitFor(() => (sdh.packetsReceived > pageBefore + 25 ? true : undefined), 'the simulator audio to flow again', 30_000);
    expect(await w.api.call(callId)).toMatchObject({ state: 'connected', busy: true });
    sdh.stopAudio();
    expect((await w.api.hangup(callId)).status).toBe(202);
  });
});
