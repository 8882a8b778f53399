import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/sim-api.js';
import type { WeriftSessionDescriptionHandler } from '../support/werift-sdh.js';
import { talkingCall, useSipWorlds, type RegisteredWorld } from '../support/sip-world.js';

/**
 * The `media-impair` fault (docs/simulator.md) through the control API, on a real call: a SIP.js agent in Node
 * answers with werift on loopback and sends a microphone's PCMU, which the simulator echoes; both sides count
 * what arrives while one direction, then the other, loses half its packets, changed mid-call.
 */

const { registeredWorld } = useSipWorlds();

/** Resolves once the page has sent `n` more packets of its microphone. */
const pageSends = (sdh: WeriftSessionDescriptionHandler, n: number) => {
  const from = sdh.packetsSent;
  return waitFor(() => (sdh.packetsSent >= from + n ? true : undefined), `${n} more packets from the page`);
};

/** Arms `media-impair` on the call's next read and makes that read: it applies from the answer on. */
async function impair(w: RegisteredWorld, callId: string, fault: Record<string, unknown>): Promise<void> {
  const armed = await fetch(`${w.sim.url}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: '/api/v1/voice/browser-calls/:id', fault: 'media-impair', callId, ...fault }),
  });
  expect(armed.status).toBe(201);
  expect((await w.api.request('GET', `/browser-calls/${callId}`)).status).toBe(200);
}

describe('media-impair', () => {
  it('loses packets in the direction it names, changed mid-call, and refuses a figure no network has', async () => {
    const w = await registeredWorld({}, { media: 'werift' });
    const { callId, sdh, fromPage } = await talkingCall(w);
    const window = async () => {
      await pageSends(sdh, 10); // what was on the wire lands first
      const [sim, page] = [await fromPage(), sdh.packetsReceived];
      await pageSends(sdh, 200);
      return { heard: (await fromPage()) - sim, echoed: sdh.packetsReceived - page };
    };

    // Toward the page only: the simulator hears all, the page gets about half of the echo.
    await impair(w, callId, { direction: 'to-browser', impairment: { lossPercent: 50 } });
    const toPage = await window();
    expect(toPage.heard).toBeGreaterThan(180);
    expect(toPage.echoed / toPage.heard).toBeGreaterThan(0.3);
    expect(toPage.echoed / toPage.heard).toBeLessThan(0.7);

    // Changed mid-call: the page's direction loses half, the other is whole again.
    await impair(w, callId, { direction: 'to-browser', impairment: null });
    await impair(w, callId, { direction: 'from-browser', impairment: { lossPercent: 50 } });
    const fromPageOnly = await window();
    expect(fromPageOnly.heard / 200).toBeGreaterThan(0.3);
    expect(fromPageOnly.heard / 200).toBeLessThan(0.7);
    expect(Math.abs(fromPageOnly.echoed - fromPageOnly.heard)).toBeLessThan(20);

    const refused = await fetch(`${w.sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/x', fault: 'media-impair', impairment: { lossPercent: 120 } }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'invalid_input' });

    sdh.stopAudio();
    expect((await w.api.hangup(callId)).status).toBe(202);
  });
});
