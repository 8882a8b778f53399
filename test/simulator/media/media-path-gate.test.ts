import type { RTCPeerConnection } from 'werift';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { blackholeUntil, impairMedia } from '../../../simulator/media/media-path-gate.js';

/**
 * The gate on a media peer's UDP sockets, on a fake socket and a fake clock: which datagrams an impairment
 * touches, when the delayed ones go out, and how a blackhole and an impairment share one socket.
 */

/** A stand-in for werift's UDP socket of one candidate: what it was asked to send and what it handed on. */
function fakePeer() {
  const sent: string[] = [];
  const received: string[] = [];
  const udp = {
    send: (data: Buffer) => {
      sent.push(data.toString('latin1'));
      return Promise.resolve();
    },
    onData: (data: Buffer) => void received.push(data.toString('latin1')),
  };
  const pc = { iceTransports: [{ connection: { protocols: [{ transport: udp }] } }] } as unknown as RTCPeerConnection;
  return { pc, udp, sent, received };
}

/** An RTP datagram (first byte 0x80, RFC 7983) tagged `tag`; a STUN one starts with 0x00. */
const rtp = (tag: string) => Buffer.concat([Buffer.from([0x80]), Buffer.from(tag, 'latin1')]);
const stun = (tag: string) => Buffer.concat([Buffer.from([0x00]), Buffer.from(tag, 'latin1')]);
const tags = (list: string[]) => list.map((datagram) => datagram.slice(1));

describe('media path gate', () => {
  it('delays the RTP the simulator sends, leaving STUN and the other direction alone', async () => {
    const clock = new FakeClock(1000);
    const { pc, udp, sent, received } = fakePeer();
    impairMedia(pc, 'to-browser', { delayMs: 50 }, 1, clock);
    await udp.send(rtp('a'));
    await udp.send(stun('s'));
    udp.onData(rtp('b'));
    expect(tags(sent)).toEqual(['s']);
    expect(tags(received)).toEqual(['b']);
    await clock.advance(49);
    expect(tags(sent)).toEqual(['s']);
    await clock.advance(1);
    expect(tags(sent)).toEqual(['s', 'a']);
  });

  it('loses what the page sends as the impairment says, and lifts it when told', async () => {
    const clock = new FakeClock(0);
    const { pc, udp, received } = fakePeer();
    impairMedia(pc, 'from-browser', { lossPercent: 100 }, 1, clock);
    udp.onData(rtp('lost'));
    udp.onData(stun('check'));
    impairMedia(pc, 'from-browser', undefined, 1, clock);
    udp.onData(rtp('heard'));
    expect(tags(received)).toEqual(['check', 'heard']);
  });

  it('drops everything both ways in a blackhole, impaired or not, then goes on impairing', async () => {
    const clock = new FakeClock(0);
    const { pc, udp, sent, received } = fakePeer();
    impairMedia(pc, 'to-browser', { delayMs: 10 }, 1, clock);
    blackholeUntil(pc, 100, clock);
    await udp.send(rtp('a'));
    await udp.send(stun('s'));
    udp.onData(rtp('b'));
    await clock.advance(100);
    expect([sent, received]).toEqual([[], []]);
    await udp.send(rtp('c'));
    await clock.advance(10);
    expect(tags(sent)).toEqual(['c']);
  });
});
