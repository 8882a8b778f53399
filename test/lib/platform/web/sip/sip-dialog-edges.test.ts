// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { bodyOf, edgeSdp, header, rawSipWorld, wait, type EdgeDialog } from '../../../../support/raw-sip.js';

/**
 * An answered call's dialog against edges we did not write: the far end's hold (RFC 3264 section 8.4), offers
 * that cross (RFC 3261 section 14), a re-INVITE refused, and the target refresh after a reconnect (RFC 3261
 * section 12.2, RFC 5626 section 5.3), written raw into the real link's socket and read back off the wire.
 */

const direction = (message: string | undefined) => /^a=(sendrecv|sendonly|recvonly|inactive)\s*$/m.exec(bodyOf(message ?? ''))?.[1];

describe("an answered call's dialog", () => {
  const world = rawSipWorld();

  /** A call answered and ACKed; its peer connection and what the link told since. */
  async function established(transport?: Parameters<typeof world.open>[0]) {
    const link = await world.open(transport);
    const edge = world.dialog();
    edge.invite();
    await wait(0);
    const answering = link.answer(1);
    await wait(3000);
    await answering;
    edge.response(200);
    edge.ack();
    await wait(1000);
    const pc = world.rtc.connections[0];
    if (!pc) throw new Error('no peer connection');
    return { link, edge, pc };
  }
  /** The re-INVITEs the page sent in the call. */
  const reinvites = (edge: EdgeDialog) => edge.requests.filter((request) => request.startsWith('INVITE '));
  /** What the link told of the call's media, quality samples aside. */
  const told = () => world.events.filter((event) => event.type !== 'quality').map((event) => ('warning' in event ? `${event.type} ${event.warning} ${event.raised}` : event.type));

  it('held by the far end (sendonly, no audio): answered recvonly, held, nothing restarted or warned; off hold it plays again, sendrecv', async () => {
    const { edge, pc } = await established();
    expect(told()).toContain('media_connected');
    pc.inbound = false;
    const hold = edge.send('INVITE', [], edgeSdp('sendonly', 2));
    await wait(0);
    expect(edge.answers.at(-1)).toBe(`200 ${hold} INVITE`);
    expect(direction(edge.response(200))).toBe('recvonly');
    edge.ack(hold);
    await wait(30_000);
    const sinceHold = told().slice(told().indexOf('media_held'));
    expect(sinceHold).toEqual(['media_held']);
    expect(reinvites(edge)).toEqual([]);

    pc.inbound = true;
    const unhold = edge.send('INVITE', [], edgeSdp('sendrecv', 3));
    await wait(0);
    expect(direction(edge.response(200))).toBe('sendrecv');
    edge.ack(unhold);
    await wait(2000);
    expect(told().slice(told().indexOf('media_held'))).toEqual(['media_held', 'media_resumed']);
  });

  it('held with a=inactive, or the old c=0.0.0.0 from a far end without ICE: answered inactive, held', async () => {
    const { edge } = await established();
    const inactive = edge.send('INVITE', [], edgeSdp('inactive', 2));
    await wait(0);
    expect(direction(edge.response(200))).toBe('inactive');
    edge.ack(inactive);
    // RFC 2543's hold: the address zeroed, no direction, no ICE.
    const zero = edge.send('INVITE', [], edgeSdp('sendrecv', 3, '0.0.0.0').replace(/a=(ice-ufrag:edge|sendrecv)\r\n/g, ''));
    await wait(0);
    expect(direction(edge.response(200))).toBe('inactive');
    edge.ack(zero);
    await wait(10_000);
    expect(told().filter((event) => /held|failed|reconnecting|no_/.test(event))).toEqual(['media_held']);
  });

  it('off hold by an ICE offer whose address is the 0.0.0.0 placeholder (as WebRTC stacks write it): resumed, sendrecv', async () => {
    const { edge } = await established();
    const hold = edge.send('INVITE', [], edgeSdp('sendonly', 2, '0.0.0.0'));
    await wait(0);
    expect(direction(edge.response(200))).toBe('recvonly');
    edge.ack(hold);
    const unhold = edge.send('INVITE', [], edgeSdp('sendrecv', 3, '0.0.0.0'));
    await wait(0);
    expect(direction(edge.response(200))).toBe('sendrecv');
    edge.ack(unhold);
    await wait(2000);
    expect(told().filter((event) => /held|resumed/.test(event))).toEqual(['media_held', 'media_resumed']);
  });

  it('reconnected mid-call: a re-INVITE on the new socket refreshes the target, its offer keeping the hold (recvonly) and the session version', async () => {
    const { edge } = await established();
    const hold = edge.send('INVITE', [], edgeSdp('sendonly', 2));
    await wait(0);
    const answered = edge.response(200);
    edge.ack(hold);
    await wait(1000);
    const first = world.sockets.last;
    first.drop();
    await wait(100);
    const second = world.sockets.last;
    expect(second).not.toBe(first);
    const [refresh] = reinvites(edge);
    expect(refresh).toBeDefined();
    expect(second.sent).toContain(refresh);
    expect(direction(refresh)).toBe('recvonly');
    // Nothing changed in the media: the same origin line, version and all (JSEP section 5.2.2).
    expect(/^o=.*$/m.exec(bodyOf(refresh ?? ''))?.[0]).toBe(/^o=.*$/m.exec(bodyOf(answered ?? ''))?.[0]);
    edge.answer(refresh ?? '', '200 OK', edgeSdp('sendonly', 2));
    await wait(1000);
    expect(edge.requests.map((request) => request.split(' ')[0])).toEqual(['INVITE', 'ACK']);
  });

  it('reconnected while our re-INVITE is still out on the dead socket: that exchange fails with its socket, and the target refresh goes on the new one', async () => {
    const { edge, pc } = await established();
    pc.connectionState = 'failed';
    pc.dispatchEvent(new Event('connectionstatechange'));
    await wait(100);
    const first = world.sockets.last;
    const [lost] = reinvites(edge);
    expect(first.sent).toContain(lost);
    first.drop();
    // Its answer can never come (RFC 7118 section 5): the transaction fails with the socket, not after Timer B.
    await wait(100);
    const second = world.sockets.last;
    expect(second).not.toBe(first);
    const [refresh] = second.sent.filter((message) => message.startsWith('INVITE '));
    expect(refresh).toBeDefined();
    expect(header(refresh, 'CSeq')).not.toBe(header(lost, 'CSeq'));
  });

  it("a service re-INVITE while our ICE restart's offer is being made gets 491; ours answered 491 is sent again within 2 s (RFC 3261 section 14)", async () => {
    const { edge, pc } = await established({ iceServers: [{ urls: 'turn:turn.invalid:3478', username: 'u', credential: 'c' }] });
    world.rtc.relayAfterMs = 2500;
    pc.connectionState = 'failed';
    pc.dispatchEvent(new Event('connectionstatechange'));
    await wait(500);
    // Our offer is still gathering (not sent yet): theirs crosses it.
    expect(reinvites(edge)).toEqual([]);
    const crossing = edge.send('INVITE', [], edgeSdp('sendrecv', 2));
    await wait(0);
    expect(edge.answers.at(-1)).toBe(`491 ${crossing} INVITE`);
    await wait(2500);
    const [ours] = reinvites(edge);
    expect(ours).toBeDefined();
    edge.answer(ours ?? '', '491 Request Pending');
    await wait(0);
    expect(pc.signalingState).toBe('stable');
    await wait(2000 + 3000);
    const [, again] = reinvites(edge);
    expect(header(again, 'CSeq')).not.toBe(header(ours, 'CSeq'));
    edge.answer(again ?? '', '200 OK', edgeSdp('sendrecv', 3));
    await wait(0);
    expect(pc.signalingState).toBe('stable');
    expect(pc.log.slice(-2)).toEqual(['local offer', 'remote answer']);
  });

  it('an offerless re-INVITE: our offer in the 200, its answer from the ACK, and no offer of ours in between', async () => {
    const { edge, pc } = await established();
    const asking = edge.send('INVITE');
    await wait(100);
    expect(edge.answers.at(-1)).toBe(`200 ${asking} INVITE`);
    expect(pc.signalingState).toBe('have-local-offer');
    // The media path fails meanwhile: its restart waits for this exchange to end.
    pc.connectionState = 'failed';
    pc.dispatchEvent(new Event('connectionstatechange'));
    await wait(400);
    expect(reinvites(edge)).toEqual([]);
    edge.ack(asking, edgeSdp('sendrecv', 2));
    await wait(0);
    expect(pc.log.slice(-2)).toEqual(['local offer', 'remote answer']);
    await wait(6000);
    expect(reinvites(edge)).toHaveLength(1);
  });

  it('our re-INVITE answered 488: the offer is rolled back (stable) and the call goes on', async () => {
    const { edge, pc } = await established();
    pc.connectionState = 'failed';
    pc.dispatchEvent(new Event('connectionstatechange'));
    await wait(100);
    const [ours] = reinvites(edge);
    edge.answer(ours ?? '', '488 Not Acceptable Here');
    await wait(0);
    expect(pc.signalingState).toBe('stable');
    expect(pc.log.at(-1)).toBe('local rollback');
    expect(edge.requests.map((request) => request.split(' ')[0])).not.toContain('BYE');
    expect(told()).not.toContain('session_ended');
  });

  it("a service re-INVITE whose offer cannot be taken or answered: 488, the connection stable, and the call goes on", async () => {
    const { edge, pc } = await established();
    const bad = edge.send('INVITE', [], 'v=1 not an SDP\r\n');
    await wait(0);
    expect(edge.answers.at(-1)).toBe(`488 ${bad} INVITE`);
    expect(pc.signalingState).toBe('stable');
    // G.729 alone: the offer is set, but no answer can be made to it.
    const g729 = edge.send('INVITE', [], edgeSdp('sendrecv', 2).replace(/ 0 8 126\r\n/, ' 18\r\n').replace(/^a=rtpmap:0 .*\r\n/m, 'a=rtpmap:18 G729/8000\r\n'));
    await wait(0);
    expect(edge.answers.at(-1)).toBe(`488 ${g729} INVITE`);
    expect(pc.signalingState).toBe('stable');
    const good = edge.send('INVITE', [], edgeSdp('sendrecv', 3));
    await wait(0);
    expect(edge.answers.at(-1)).toBe(`200 ${good} INVITE`);
    edge.ack(good);
    await wait(0);
    expect(told()).not.toContain('session_ended');
  });

  it('an UPDATE (RFC 3311): a session refresh without a body gets 200 with our Contact and the call goes on; an offer is answered in the 200, or 491 while another exchange is under way; an unknown dialog gets 481', async () => {
    const { edge, pc } = await established();
    const contact = header(edge.response(200), 'Contact');
    const refresh = edge.send('UPDATE', ['Session-Expires: 1800;refresher=uac']);
    await wait(0);
    expect(edge.answers.at(-1)).toBe(`200 ${refresh} UPDATE`);
    const refreshed = edge.response(200);
    expect(header(refreshed, 'Contact')).toBe(contact);
    expect(header(refreshed, 'Allow')).toMatch(/\bUPDATE\b/);
    expect(bodyOf(refreshed ?? '')).toBe('');

    const hold = edge.send('UPDATE', [], edgeSdp('sendonly', 2));
    await wait(0);
    expect(edge.answers.at(-1)).toBe(`200 ${hold} UPDATE`);
    expect(direction(edge.response(200))).toBe('recvonly');
    expect(pc.signalingState).toBe('stable');
    expect(told()).toContain('media_held');

    // An offerless re-INVITE's exchange lasts until its ACK: an offer in an UPDATE meanwhile crosses it.
    const asking = edge.send('INVITE');
    await wait(100);
    const crossing = edge.send('UPDATE', [], edgeSdp('sendrecv', 3));
    await wait(0);
    expect(edge.answers.at(-1)).toBe(`491 ${crossing} UPDATE`);
    edge.ack(asking, edgeSdp('sendonly', 3));
    await wait(0);

    const stray = world.dialog();
    stray.toTag = 'unknown';
    const unknown = stray.send('UPDATE');
    await wait(0);
    expect(stray.answers).toEqual([`481 ${unknown} UPDATE`]);
    expect(edge.requests.map((request) => request.split(' ')[0])).not.toContain('BYE');
    expect(told()).not.toContain('session_ended');
  });
});
