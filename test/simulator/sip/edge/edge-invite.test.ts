import { describe, expect, it } from 'vitest';
import type { MediaStreamTrack } from 'werift';
import { createSimulatorControl, type SimulatorEdgeInput } from '../../../../simulator/http/control-client.js';
import { parseResponse } from '../../support/raw-sip.js';
import { waitFor } from '../../support/sim-api.js';
import { answeredCall, ringingCall, talkingCall, useSipWorlds, type RegisteredWorld } from '../../support/sip-world.js';
import type { SipClientOptions } from '../../support/sip-client.js';

/**
 * The INVITEs and in-dialog requests of each edge profile (docs/simulator.md, "Edge profiles"), on the wire:
 * SIP.js in Node answers them as the page's stack would, and every frame it received is read back.
 */

const { received, registeredWorld } = useSipWorlds();

/** A registered agent behind an edge that speaks as `edge`. */
async function behind(edge: SimulatorEdgeInput, client: SipClientOptions = {}): Promise<RegisteredWorld> {
  const w = await registeredWorld({}, client);
  await createSimulatorControl(w.sim.url).setEdge(edge);
  return w;
}

/** The requests of `method` the page received, as text. */
const requests = (method: string): string[] => received.filter((frame) => frame.startsWith(`${method} sip:`));

/** The value of `name` in a SIP message's head. */
const header = (text: string | undefined, name: string): string | undefined => parseResponse(`SIP/2.0 200 OK\r\n${(text ?? '').split('\r\n').slice(1).join('\r\n')}`).headers.get(name.toLowerCase())?.[0];

describe('asterisk', () => {
  it('RFC 3262: requires 100rel, PRACKs the reliable 180, and the call is answered', async () => {
    const w = await behind({ profile: 'asterisk' }, { rel100: true });
    const { callId, invitation } = await ringingCall(w);
    const invite = requests('INVITE')[0];
    expect(header(invite, 'Require')).toBe('100rel');
    expect(header(invite, 'Session-Expires')).toBe('90;refresher=uac');
    await invitation.progress({ rel100: true });
    await waitFor(() => requests('PRACK')[0], 'the PRACK of the reliable 180');
    expect(header(requests('PRACK')[0], 'RAck')).toMatch(/^\d+ 1 INVITE$/);
    await invitation.accept();
    await w.api.waitForCall(callId, (call) => call.state === 'connected' || call.state === 'dialing_recipient', 'the call to be answered');
    expect((await w.api.facts(callId)).edgeRequests).toMatchObject([{ method: 'PRACK', statusCode: 200 }]);
  });

  it('RFC 4028: refreshes the session at half its interval, by re-INVITE then UPDATE, each with Session-Expires', async () => {
    const w = await behind({ profile: 'asterisk', sessionExpiresSeconds: 2 });
    const { callId } = await answeredCall(w);
    const facts = await waitFor(async () => {
      const read = await w.api.facts(callId);
      return read.edgeRequests.length >= 2 ? read : undefined;
    }, 'two session refreshes');
    expect(facts.edgeRequests.slice(0, 2).map((request) => request.method)).toEqual(['INVITE', 'UPDATE']);
    expect(facts.edgeRequests[0]?.statusCode).toBe(200);
    // The page's stack answers the UPDATE as it can (SIP.js's core answers 501): the service records what it said.
    expect(facts.edgeRequests[1]?.statusCode).toBeGreaterThanOrEqual(200);
    const reinvite = requests('INVITE')[1];
    expect(header(reinvite, 'Session-Expires')).toBe('2;refresher=uac');
    expect(header(requests('UPDATE')[0], 'Session-Expires')).toBe('2;refresher=uac');
    // The refresh offers the same session again: a raised version, the same ICE credentials.
    const ufrag = (sdp: string | undefined) => /a=ice-ufrag:(\S+)/.exec(sdp ?? '')?.[1];
    expect(ufrag(reinvite)).toBe(ufrag(requests('INVITE')[0]));
  });

  it('RFC 3264 section 8.4: holds with a=sendonly and sends no audio, then resumes with a=sendrecv and audio', async () => {
    const w = await behind({ profile: 'asterisk' }, { media: 'werift', rel100: true });
    const { callId, sdh } = await talkingCall(w);
    // The sequence number and marker of every RTP packet the page receives (RFC 3550 section 5.1: one number per packet sent).
    const arrivals: Array<{ seq: number; marker: boolean }> = [];
    const tracks = new Set<MediaStreamTrack>();
    const record = (track: MediaStreamTrack | undefined) => {
      if (!track || tracks.has(track)) return;
      tracks.add(track);
      track.onReceiveRtp.subscribe((rtp) => arrivals.push({ seq: rtp.header.sequenceNumber, marker: rtp.header.marker }));
    };
    // The call's track, and any a re-INVITE's answer announces (werift announces the same one again).
    record(sdh.pc.getTransceivers()[0]?.receiver.tracks[0]);
    sdh.pc.onTrack.subscribe(record);
    await waitFor(() => (arrivals.length >= 10 ? true : undefined), 'audio seen packet by packet');
    const sentToPage = async () => (await w.api.inspect(callId)).media?.packetsToBrowser ?? -1;
    const control = createSimulatorControl(w.sim.url);
    expect(await control.hold(callId)).toBe(200);
    expect(requests('INVITE').at(-1)).toMatch(/^a=sendonly\r?$/m);
    // While the page sends a stretch of its own audio (its own clock, however busy the machine), the service sends
    // nothing: counted where it sends.
    const sentAtHold = await sentToPage();
    const pageSent = sdh.packetsSent;
    await waitFor(() => (sdh.packetsSent >= pageSent + 50 ? true : undefined), 'fifty more of the page\'s own packets');
    expect(await sentToPage()).toBe(sentAtHold);
    const heldAt = sdh.packetsReceived;
    const arrivedWhileHeld = arrivals.length;
    expect(await control.unhold(callId)).toBe(200);
    expect(requests('INVITE').at(-1)).toMatch(/^a=sendrecv\r?$/m);
    await waitFor(() => (sdh.packetsReceived > heldAt + 10 ? true : undefined), 'audio again after the hold');
    // On the wire, the page heard no packet sent while held: the stream resumes with a new talkspurt (RFC 3551
    // section 4.1: the marker) whose sequence number follows the last before the hold, whenever that one landed.
    const resumed = arrivals.findIndex((arrival, i) => i >= arrivedWhileHeld && arrival.marker);
    expect(resumed).toBeGreaterThan(0);
    expect(arrivals[resumed]!.seq).toBe((arrivals[resumed - 1]!.seq + 1) & 0xffff);
    const reinvites = (await w.api.facts(callId)).edgeRequests.filter((request) => request.method === 'INVITE');
    expect(reinvites.map((request) => request.statusCode)).toEqual([200, 200]);
  });
});

describe('carrier-sbc', () => {
  it('rings with an Expires header and a multipart/mixed body: the SDP offer beside an application/isup part', async () => {
    const w = await behind({ profile: 'carrier-sbc' });
    await ringingCall(w);
    const invite = requests('INVITE')[0] ?? '';
    expect(header(invite, 'Expires')).toBe('60');
    const boundary = /^Content-Type: multipart\/mixed;boundary=(\S+)\r?$/im.exec(invite)?.[1];
    expect(boundary).toBeDefined();
    const parts = invite.split(`--${boundary ?? ''}`).slice(1, -1);
    expect(parts.map((part) => /Content-Type: ([^;\r\n]+)/i.exec(part)?.[1])).toEqual(['application/sdp', 'application/isup']);
    expect(parts[0]).toMatch(/^m=audio /m);
  });

  it('RFC 3261 section 13.2.1: rings offerless; the page offers in its 200, the ACK answers, and audio flows', async () => {
    const w = await behind({ profile: 'carrier-sbc', carrierInviteBody: 'offerless' }, { media: 'werift' });
    const { callId, sdh } = await talkingCall(w);
    const invite = requests('INVITE')[0] ?? '';
    expect(header(invite, 'Content-Length')).toBe('0');
    expect(received.find((frame) => frame.startsWith('ACK sip:'))).toMatch(/^m=audio /m);
    expect(sdh.packetsReceived).toBeGreaterThan(25);
    expect((await w.api.call(callId)).state).toBe('connected');
  });
});
