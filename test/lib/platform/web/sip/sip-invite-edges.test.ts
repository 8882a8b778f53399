// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { bodyOf, edgeSdp, header, rawSipWorld, settled, wait } from '../../../../support/raw-sip.js';

/**
 * An INVITE as edges we did not write send it (Asterisk's 100rel, a carrier SBC's Expires, offerless INVITEs and
 * SDP beside ISUP), written raw into the real link's socket; the page's answers read back off the wire.
 */

describe('an INVITE from an edge we did not write', () => {
  const world = rawSipWorld();

  it('is answered 100, 180, then 200 with the answer and Supported: 100rel, and the ACK confirms it', async () => {
    const link = await world.open();
    const edge = world.dialog();
    edge.invite();
    await wait(0);
    expect(world.offered()).toEqual([1]);
    await settled(link.answer(1));
    expect(edge.answers).toEqual(['100 1 INVITE', '180 1 INVITE', '200 1 INVITE']);
    expect(bodyOf(edge.response(200) ?? '')).toMatch(/^v=0/);
    expect(header(edge.response(200), 'Supported')).toContain('100rel');
    edge.ack();
    await wait(1000);
    expect(edge.requests).toEqual([]);
  });

  it('requiring 100rel: its 180 goes reliably (RSeq, Require), again until the PRACK, which is answered 200; then the 200 OK (RFC 3262)', async () => {
    const link = await world.open();
    const edge = world.dialog();
    edge.invite(['Require: 100rel', 'Supported: 100rel, timer']);
    await wait(0);
    const ringing = edge.response(180);
    expect(header(ringing, 'Require')).toBe('100rel');
    const rseq = header(ringing, 'RSeq');
    expect(rseq).toMatch(/^\d+$/);
    // Unacknowledged, it is sent again at T1, then 2*T1.
    await wait(1600);
    expect(edge.answers.filter((answer) => answer.startsWith('180 '))).toHaveLength(3);
    const prack = edge.send('PRACK', [`RAck: ${rseq} 1 INVITE`]);
    await wait(0);
    expect(edge.answers).toContain(`200 ${prack} PRACK`);
    await wait(10_000);
    expect(edge.answers.filter((answer) => answer.startsWith('180 '))).toHaveLength(3);
    expect(world.offered()).toEqual([1]);
    await settled(link.answer(1));
    expect(edge.answers.at(-1)).toBe('200 1 INVITE');
  });

  it('requiring 100rel and never PRACKed: after 64*T1 the INVITE is refused 504 and withdrawn from the helper (RFC 3262 section 3)', async () => {
    await world.open();
    const edge = world.dialog();
    edge.invite(['Require: 100rel']);
    await wait(31_000);
    expect(world.offered()).toEqual([1]);
    await wait(1100);
    expect(edge.answers.at(-1)).toBe('504 1 INVITE');
    expect(world.offered()).toEqual([]);
  });

  it('requiring an extension the page does not support: 420 Bad Extension naming it, and the helper never hears of it (RFC 3261 section 8.2.2.3)', async () => {
    await world.open();
    const edge = world.dialog();
    edge.invite(['Require: 100rel, precondition']);
    await wait(0);
    expect(edge.answers).toEqual(['420 1 INVITE']);
    expect(header(edge.response(420), 'Unsupported')).toBe('precondition');
    expect(world.events.filter((event) => event.type === 'invite_received')).toEqual([]);
  });

  it('offerless: the page offers in its 200 OK and takes the answer from the ACK (RFC 3264 section 5, RFC 3261 section 13.2.1)', async () => {
    const link = await world.open();
    const edge = world.dialog();
    edge.invite([], '');
    await wait(0);
    await settled(link.answer(1));
    const ok = edge.response(200) ?? '';
    expect(bodyOf(ok)).toMatch(/^v=0[\s\S]*a=sendrecv/);
    edge.ack(1, edgeSdp());
    await wait(2000);
    const [pc] = world.rtc.connections;
    expect(pc?.log).toEqual(['local offer', 'remote answer']);
    expect(pc?.signalingState).toBe('stable');
    expect(edge.requests).toEqual([]);
    expect(world.events.map((event) => event.type)).not.toContain('media_failed');
  });

  for (const [name, ack] of [
    ['no answer', ''],
    ['an answer that cannot be applied', 'v=1 not an SDP\r\n'],
  ] as const) {
    it(`offerless, with ${name} in the ACK: the call ends by BYE and the helper hears it failed, not a silent call`, async () => {
      const link = await world.open();
      const edge = world.dialog();
      edge.invite([], '');
      await wait(0);
      await settled(link.answer(1));
      edge.response(200);
      edge.ack(1, ack);
      await wait(100);
      expect(edge.requests.map((request) => request.split(' ')[0])).toEqual(['BYE']);
      const failed = world.events.find((event) => event.type === 'media_failed');
      expect(failed).toMatchObject({ type: 'media_failed', callId: 'bc_1', error: { code: 'audio_path_failed' } });
      expect(world.events.at(-1)).toEqual({ type: 'session_ended', callId: 'bc_1' });
    });
  }

  it("with Expires: once it passes unanswered, 487 and the offer withdrawn from the helper (RFC 3261 section 20.19)", async () => {
    await world.open();
    const edge = world.dialog();
    edge.invite(['Expires: 30']);
    await wait(29_000);
    expect(world.offered()).toEqual([1]);
    await wait(1000);
    expect(edge.answers.at(-1)).toBe('487 1 INVITE');
    expect(world.offered()).toEqual([]);
  });

  it('answered before its Expires: the expiry does nothing after', async () => {
    const link = await world.open();
    const edge = world.dialog();
    edge.invite(['Expires: 30']);
    await wait(0);
    await settled(link.answer(1));
    edge.response(200);
    edge.ack();
    await wait(60_000);
    expect(edge.answers.filter((answer) => !answer.startsWith('200 '))).toEqual(['100 1 INVITE', '180 1 INVITE']);
  });

  it('with a multipart/mixed body (SDP beside ISUP): the application/sdp part is the offer (RFC 5621, RFC 3204)', async () => {
    const link = await world.open();
    const edge = world.dialog();
    const body = ['--unique-boundary-1', 'Content-Type: application/sdp', '', edgeSdp().trimEnd(), '--unique-boundary-1', 'Content-Type: application/ISUP; version=nxv3; base=etsi121', 'Content-Disposition: signal; handling=optional', '', '\x01\x00\x49\x00\x00\x03\x02', '--unique-boundary-1--', ''].join('\r\n');
    edge.invite([], body, 'multipart/mixed;boundary=unique-boundary-1');
    await wait(0);
    await settled(link.answer(1));
    expect(edge.answers.at(-1)).toBe('200 1 INVITE');
    const [pc] = world.rtc.connections;
    expect(pc?.remoteDescription?.sdp).toBe(edgeSdp());
  });

  it('with a multipart body and no SDP in it: 488; with a body of a type the page cannot read: 415 with Accept', async () => {
    await world.open();
    const isupOnly = world.dialog();
    isupOnly.invite([], ['--b1', 'Content-Type: application/ISUP; version=nxv3', '', 'x', '--b1--', ''].join('\r\n'), 'multipart/mixed; boundary="b1"');
    const text = world.dialog();
    text.invite([], 'hello', 'text/plain');
    await wait(0);
    expect(isupOnly.answers).toEqual(['488 1 INVITE']);
    expect(text.answers).toEqual(['415 1 INVITE']);
    expect(header(text.response(415), 'Accept')).toContain('application/sdp');
    expect(world.offered()).toEqual([]);
  });

  it('whose offer cannot be taken: answer() rejects with a coded error and the INVITE is answered 488, never left unanswered', async () => {
    const link = await world.open();
    const edge = world.dialog();
    edge.invite([], 'v=1 not an SDP\r\n');
    await wait(0);
    await expect(link.answer(1)).rejects.toMatchObject({ code: 'connection_failed' });
    expect(edge.answers.at(-1)).toBe('488 1 INVITE');
    expect(world.rtc.tracks.every((track) => track.readyState === 'ended')).toBe(true);
  });

  it('whose media cannot even be made (an ICE server URL the browser refuses): answered 500, and answer() rejects with a coded error', async () => {
    const link = await world.open({ iceServers: [{ urls: 'https://turn.invalid' }] });
    const edge = world.dialog();
    edge.invite();
    await wait(0);
    await expect(link.answer(1)).rejects.toMatchObject({ code: 'connection_failed' });
    expect(edge.answers.at(-1)).toBe('500 1 INVITE');
  });

  it('CANCELled while the microphone is asked for: 487, and the microphone is let go as soon as it comes', async () => {
    const link = await world.open();
    const edge = world.dialog();
    edge.invite();
    await wait(0);
    world.rtc.holdMicrophone = true;
    const answering = link.answer(1);
    await wait(0);
    edge.cancel();
    await wait(0);
    expect(edge.answers).toContain('487 1 INVITE');
    world.rtc.releaseMicrophone();
    await answering;
    expect(world.rtc.tracks).toHaveLength(1);
    expect(world.rtc.tracks[0]?.readyState).toBe('ended');
    expect(edge.answers).not.toContain('200 1 INVITE');
  });

  it('close() while an INVITE is being answered and another rings: each gets its final response (480), and no microphone is kept', async () => {
    const link = await world.open();
    const answered = world.dialog();
    const ringing = world.dialog();
    answered.invite();
    ringing.invite();
    await wait(0);
    world.rtc.holdMicrophone = true;
    const answering = link.answer(1);
    await wait(0);
    const closing = link.close();
    await wait(0);
    expect(answered.answers.at(-1)).toBe('480 1 INVITE');
    expect(ringing.answers.at(-1)).toBe('480 1 INVITE');
    world.rtc.releaseMicrophone();
    await answering;
    await wait(5000);
    await closing;
    expect(world.rtc.tracks.map((track) => track.readyState)).toEqual(['ended']);
  });

  it("with TURN among the session's ICE servers: the answer waits for the relay candidate past the usual wait; without TURN it does not", async () => {
    const link = await world.open({ iceServers: [{ urls: 'turns:turn.invalid:443?transport=tcp', username: 'u', credential: 'c' }] });
    world.rtc.relayAfterMs = 2500;
    const edge = world.dialog();
    edge.invite();
    await wait(0);
    const answering = link.answer(1);
    await wait(1000);
    expect(edge.response(200)).toBeUndefined();
    await wait(1600);
    await answering;
    expect(bodyOf(edge.response(200) ?? '')).toMatch(/typ relay/);
  });

  it('without TURN, the answer goes with the host candidates as soon as gathering ends', async () => {
    const link = await world.open();
    const edge = world.dialog();
    edge.invite();
    await wait(0);
    await settled(link.answer(1));
    expect(bodyOf(edge.response(200) ?? '')).toMatch(/typ host/);
    expect(bodyOf(edge.response(200) ?? '')).not.toMatch(/typ relay/);
  });
});
