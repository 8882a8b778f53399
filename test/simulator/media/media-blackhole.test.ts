import { describe, expect, it } from 'vitest';
import { sleep, waitFor } from '../support/sim-api.js';
import { talkingCall, useSipWorlds } from '../support/sip-world.js';

/**
 * The `media-blackhole` fault (docs/simulator.md): a call's media path drops every
 * packet both ways for `ms`, then carries them again, on the same call. A SIP.js agent in Node answers with
 * werift on loopback and sends a microphone's PCMU; both sides count what arrives.
 */

const { registeredWorld } = useSipWorlds();

describe('media-blackhole', () => {
  it('stops the audio both ways for its length, then lets it flow again on the same call', async () => {
    const w = await registeredWorld({}, { media: 'werift' });
    const { callId, sdh, fromPage } = await talkingCall(w);

    const armed = await fetch(`${w.sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/api/v1/voice/browser-calls/:id', fault: 'media-blackhole', ms: 1500, callId }),
    });
    expect(armed.status).toBe(201);
    expect((await w.api.request('GET', `/browser-calls/${callId}`)).status).toBe(200);
    const blackholedAt = Date.now();

    // Inside the blackhole (packets already on the wire may still land in its first moments).
    await sleep(200);
    const [simBefore, pageBefore] = [await fromPage(), sdh.packetsReceived];
    await sleep(800);
    expect(await fromPage()).toBe(simBefore);
    expect(sdh.packetsReceived).toBe(pageBefore);

    // After it, the same call carries audio again both ways.
    await sleep(Math.max(0, blackholedAt + 1500 - Date.now()));
    await waitFor(async () => ((await fromPage()) > simBefore + 25 ? true : undefined), 'the page audio to flow again', 30_000);
    await waitFor(() => (sdh.packetsReceived > pageBefore + 25 ? true : undefined), 'the simulator audio to flow again', 30_000);
    expect(await w.api.call(callId)).toMatchObject({ state: 'connected', busy: true });
    sdh.stopAudio();
    expect((await w.api.hangup(callId)).status).toBe(202);
  });
});
