/**
 * Loopback tests for the simulator's media endpoint: our MediaPeer offers, a plain
 * werift RTCPeerConnection plays the browser and answers, both in this process.
 * Every UDP bind/send is recorded to prove nothing but 127.0.0.1 is ever used.
 */
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket } from 'werift';
import { linearToMulaw, mulawRms, mulawToLinear } from '../../../simulator/media/g711.js';
import { VOICE_RMS_THRESHOLD } from '../../../simulator/media/inbound-rtp.js';
import { disableStun, loopbackOnlySdp, loopbackPeerConfig } from '../../../simulator/media/loopback-webrtc.js';
import { createMediaPeer } from '../../../simulator/media/media.js';
import { frequencyOf, voicedFrame } from '../support/audio.js';
import { waitFor } from '../support/sim-api.js';
import { dtmfDigit, parseTelephoneEvent } from '../../../simulator/media/telephone-event.js';

const TONE_MS = 600;
const TONE_FRAMES = TONE_MS / 20;

// --- record every UDP socket bind/send (werift's UdpTransport uses node:dgram) ---
const sendTargets: string[] = [];
const bindAddresses: string[] = [];
const origSend = dgram.Socket.prototype.send;
const origBind = dgram.Socket.prototype.bind;
beforeAll(() => {
  dgram.Socket.prototype.send = function (this: dgram.Socket, ...args: unknown[]) {
    // werift calls send(data, port, address[, cb]).
    sendTargets.push(typeof args[2] === 'string' ? args[2] : `?${String(args[2])}`);
    return Reflect.apply(origSend, this, args);
  } as typeof origSend;
  dgram.Socket.prototype.bind = function (this: dgram.Socket, ...args: unknown[]) {
    const [first, second] = args;
    const address =
      typeof first === 'object' && first !== null && 'address' in first ? first.address : second;
    bindAddresses.push(typeof address === 'string' ? address : '<any>');
    return Reflect.apply(origBind, this, args);
  } as typeof origBind;
});
afterAll(() => {
  dgram.Socket.prototype.send = origSend;
  dgram.Socket.prototype.bind = origBind;
});

/** Waits until `cond` holds, within the 30 s these werift calls are given. */
const until = (cond: () => boolean, what: string, timeoutMs = 30_000) => waitFor(() => cond() || undefined, what, timeoutMs);

/** Silent but unique frame: mu-law 0xFF (+0) and 0x7F (-0) both decode to 0 (G.711), so k is encoded for free. */
function silentFrame(k: number): Buffer {
  const out = Buffer.alloc(160);
  for (let i = 0; i < 160; i++) out[i] = (k >> i % 16) & 1 ? 0x7f : 0xff;
  return out;
}
const resources = (kind: string): number => process.getActiveResourcesInfo().filter((r) => r === kind).length;

describe('g711', () => {
  it('encodes and decodes mu-law per G.711', () => {
    expect(linearToMulaw(0)).toBe(0xff);
    expect(mulawToLinear(0xff)).toBe(0);
    expect(mulawToLinear(0x00)).toBe(-32124);
    expect(mulawToLinear(0x80)).toBe(32124);
    expect(linearToMulaw(40000)).toBe(0x80); // clipped
    for (const v of [-30000, -8000, -100, 0, 100, 8000, 30000]) {
      expect(Math.abs(mulawToLinear(linearToMulaw(v)) - v)).toBeLessThanOrEqual(Math.abs(v) / 16 + 8);
    }
    expect(mulawRms(silentFrame(12345))).toBe(0);
    expect(mulawRms(voicedFrame(3))).toBeGreaterThan(3000);
  });
});

describe('RFC 4733 telephone-event', () => {
  it('section 2.3: reads event, E bit, volume and duration', () => {
    expect(parseTelephoneEvent(Buffer.from([11, 0x80 | 10, 0x03, 0xc0]))).toEqual({ event: 11, end: true, volume: 10, duration: 960 });
    expect(parseTelephoneEvent(Buffer.from([5, 0x40 | 7, 0x00, 0xa0]))).toEqual({ event: 5, end: false, volume: 7, duration: 160 });
    expect(parseTelephoneEvent(Buffer.from([5, 0x80, 0x00]))).toBeUndefined();
  });

  it('section 3: events 0-15 are the DTMF digits, the rest are not', () => {
    expect(Array.from({ length: 16 }, (_, event) => dtmfDigit(event)).join('')).toBe('0123456789*#ABCD');
    expect(dtmfDigit(16)).toBeUndefined(); // flash
    expect(dtmfDigit(32)).toBeUndefined(); // a fax tone (RFC 4734)
  });
});

describe('media peer', () => {
  it('keeps only loopback UDP candidates from an answer', () => {
    const sdp = [
      'v=0',
      'a=candidate:1 1 udp 2122260223 198.51.100.7 50000 typ host',
      'a=candidate:2 1 udp 2122260223 0b1c2d3e.local 50001 typ host',
      'a=candidate:3 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active',
      'a=candidate:4 1 udp 2122194687 127.0.0.1 50002 typ host',
      '',
    ].join('\r\n');
    expect(loopbackOnlySdp(sdp)).toBe("v=0\r\na=candidate:4 1 udp 2122194687 127.0.0.1 50002 typ host\r\n");
  });

  it('rejects connected when closed before connecting', async () => {
    const peer = createMediaPeer();
    await peer.createOffer();
    await peer.close();
    await expect(peer.connected).rejects.toThrow(/closed/);
    await peer.close(); // idempotent
    expect(peer.phase).toBe('closed');
  }, 60_000);

  it('connects to a browser that names its candidates by mDNS alone, once its first check arrives (peer-reflexive)', async () => {
    const peer = createMediaPeer({ toneMs: TONE_MS });
    const browser = new RTCPeerConnection(loopbackPeerConfig());
    await browser.setRemoteDescription({ type: 'offer', sdp: await peer.createOffer() });
    disableStun(browser);
    browser.getTransceivers()[0]?.setDirection('sendrecv');
    const answer = await browser.createAnswer();
    // Its one host candidate as Firefox with default settings writes it: an mDNS name (which the peer drops), and
    // end-of-candidates, after which werift's ICE gives up as soon as it has no pair to check.
    const mdns = 'a=candidate:1 1 udp 2122260223 6d5e4f3a-0b1c-4d2e-8f90-a1b2c3d4e5f6.local 50000 typ host\r\na=end-of-candidates';
    const hidden = `${answer.sdp.trimEnd()}\r\n${mdns}\r\n`;
    const accepted = peer.acceptAnswer(hidden);
    // The answer is in before the browser has gathered or sent a check: ICE started now would have no pair at all.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await browser.setLocalDescription(answer);
    await accepted;
    await peer.connected;
    await until(() => browser.connectionState === 'connected', 'browser connected');
    await Promise.all([peer.close(), browser.close()]);
  }, 60_000);

  it("answers the browser's offer (an offerless INVITE's 2xx) and hears its digits on the browser's telephone-event type", async () => {
    const peer = createMediaPeer({ toneMs: TONE_MS });
    const digits: string[] = [];
    peer.onDtmf((digit) => digits.push(digit));
    // The browser offers telephone-event on a payload type of its own, as Chromium does (126); the answer keeps it.
    const browser = new RTCPeerConnection({
      ...loopbackPeerConfig(),
      codecs: {
        audio: [
          new RTCRtpCodecParameters({ mimeType: 'audio/PCMU', clockRate: 8000, channels: 1, payloadType: 0 }),
          new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 8000, payloadType: 126, parameters: '0-16' }),
        ],
        video: [],
      },
    });
    const transceiver = browser.addTransceiver('audio', { direction: 'sendrecv' });
    const offer = await browser.createOffer();
    disableStun(browser);
    await browser.setLocalDescription(offer);
    if (browser.iceGatheringState !== 'complete') await browser.iceGatheringStateChange.watch((state) => state === 'complete');
    const answer = await peer.answerOffer(browser.localDescription?.sdp ?? '');
    expect(answer).toMatch(/^a=rtpmap:126 telephone-event\/8000\r?$/m);
    await browser.setRemoteDescription({ type: 'answer', sdp: answer });
    await peer.connected;
    await until(() => browser.connectionState === 'connected', 'browser connected');

    // RFC 4733 section 2.5.1.4: the end packet three times, with the event's timestamp.
    for (let i = 0; i < 3; i++) {
      const header = new RtpHeader({ payloadType: 126, sequenceNumber: 100 + i, timestamp: 4000, ssrc: transceiver.sender.ssrc });
      void transceiver.dtlsTransport.sendRtp(Buffer.from([5, 0x80 | 10, 0x00, 0xa0]), header);
    }
    await until(() => digits.length > 0, 'the digit at the peer', 30_000);
    expect(digits).toEqual(['5']);
    expect(peer.counts().dtmfPacketsFromBrowser).toBe(3);
    await Promise.all([peer.close(), browser.close()]);
  }, 60_000);

  it("plays a tone, then echoes the browser's PCMU, counting it all", async () => {
    const timersBefore = resources('Timeout');
    let fakeNow = 1_700_000_000_000;
    const peer = createMediaPeer({ toneMs: TONE_MS, now: () => (fakeNow += 1) });
    const digits: string[] = [];
    peer.onDtmf((digit) => digits.push(digit));
    const offer = await peer.createOffer();
    // Opus first, as hosted services offer it; this browser knows PCMU alone, and the call runs on it.
    expect(offer).toMatch(/^m=audio 9 UDP\/TLS\/RTP\/SAVPF 111 0 101 110\r?$/m);
    expect(offer).toMatch(/^a=rtpmap:111 opus\/48000\/2\r?$/m);
    expect(offer).toMatch(/^a=fmtp:111 useinbandfec=1;stereo=0;sprop-stereo=0\r?$/m);
    expect(offer).toMatch(/^a=ptime:20\r?$/m);
    expect(offer).toMatch(/^a=rtpmap:0 PCMU\/8000\r?$/m);
    expect(offer).toMatch(/^a=rtpmap:101 telephone-event\/8000\r?$/m);
    expect(offer).toMatch(/^a=fmtp:101 0-16\r?$/m);
    expect(offer).toMatch(/^a=sendrecv\r?$/m);
    const candidates = offer.split(/\r?\n/).filter((l) => l.startsWith('a=candidate:'));
    expect(candidates.length).toBeGreaterThan(0);
    for (const c of candidates) expect(c.split(' ')[4]).toBe('127.0.0.1');

    // The 'browser': a plain werift peer, equally confined to loopback.
    const browser = new RTCPeerConnection(loopbackPeerConfig());
    const received: RtpPacket[] = [];
    // Subscribe first: werift fires onTrack inside setRemoteDescription.
    browser.onTrack.subscribe((track) => track.onReceiveRtp.subscribe((rtp) => received.push(rtp.clone())));
    await browser.setRemoteDescription({ type: 'offer', sdp: offer });
    disableStun(browser); // transports exist now; gathering starts in setLocalDescription
    const transceiver = browser.getTransceivers()[0];
    if (!transceiver) throw new Error('no transceiver from the offer');
    transceiver.setDirection('sendrecv');
    await browser.setLocalDescription(await browser.createAnswer());
    const answer = browser.localDescription?.sdp ?? '';
    // Pretend Chromium also listed a LAN address and an mDNS name: neither may be used.
    const noisyAnswer = answer.replace(
      /^(a=candidate:.*)$/m,
      "a=candidate:9 1 udp 2122260223 198.51.100.7 50000 typ host\r\na=candidate:8 1 udp 2122260223 0b1c2d3e.local 50001 typ host\r\n$1",
    );
    await peer.acceptAnswer(noisyAnswer);

    await peer.connected;
    await until(() => browser.connectionState === 'connected', 'browser connected');
    expect(peer.phase).toBe('tone');

    // Browser sends: 20 voiced frames, silence until 10 echoes came back, then 5 voiced frames.
    const sent: Buffer[] = [];
    let voicedSent = 0;
    let seq = 1000;
    let ts = 5000;
    const sendFrame = (payload: Buffer): void => {
      const header = new RtpHeader({ payloadType: 0, sequenceNumber: seq++, timestamp: ts });
      ts += 160;
      sent.push(payload);
      void transceiver.sender.sendRtp(new RtpPacket(header, payload));
    };
    // DTMF bypasses sender.sendRtp, which would rewrite pt 101 to PCMU's 0.
    let dtmfPackets = 0;
    const sendDtmf = (event: number, end: boolean, eventTs: number): void => {
      const header = new RtpHeader({ payloadType: 101, sequenceNumber: seq++, timestamp: eventTs, ssrc: transceiver.sender.ssrc });
      // RFC 4733 section 2.3: event, E bit + volume 10, duration 160.
      void transceiver.dtlsTransport.sendRtp(Buffer.from([event, (end ? 0x80 : 0) | 10, 0x00, 0xa0]), header);
      dtmfPackets++;
    };
    let hashTs = 0;
    const echoesSeen = (): number => Math.max(0, received.length - TONE_FRAMES);
    await new Promise<void>((resolve) => {
      let k = 0;
      let trailing = 0;
      const timer = setInterval(() => {
        // Alongside the first voiced frames, which are always sent: RFC 4733 2.5.1.4 sends an event's end
        // packet 3 times, all with the event's timestamp.
        if (k === 5) for (let i = 0; i < 3; i++) sendDtmf(5, true, ts);
        if (k === 7) sendDtmf(11, false, (hashTs = ts)); // '#' starts...
        if (k === 8) for (let i = 0; i < 3; i++) sendDtmf(11, true, hashTs); // ...and ends one frame later
        if (k === 9) sendDtmf(11, true, hashTs); // a late retransmission: still one '#'
        if (k < 20) {
          sendFrame(voicedFrame(k));
          voicedSent++;
        } else if (echoesSeen() < 10 && k < 1000) {
          sendFrame(silentFrame(k));
        } else if (trailing < 5) {
          sendFrame(voicedFrame(k));
          voicedSent++;
          trailing++;
        } else {
          clearInterval(timer);
          resolve();
        }
        k++;
      }, 20);
    });

    await until(() => peer.counts().packetsFromBrowser === sent.length, 'all frames at the peer');
    await until(() => received.length === peer.counts().packetsToBrowser, 'all echoes at the browser');

    const counts = peer.counts();
    expect(counts.codec).toBe('pcmu');
    expect(counts.packetsFromBrowser).toBe(sent.length);
    expect(counts.bytesFromBrowser).toBe(sent.length * 160);
    expect(counts.voicedPacketsFromBrowser).toBe(voicedSent);
    expect(counts.dtmfPacketsFromBrowser).toBe(dtmfPackets);
    expect(dtmfPackets).toBe(8);
    expect(digits).toEqual(['5', '#']);
    expect(counts.lastPacketFromBrowserAt).toBeGreaterThan(1_700_000_000_000);
    expect(counts.packetsToBrowser).toBeGreaterThan(TONE_FRAMES + 10);
    expect(peer.phase).toBe('echo');

    // Tone: 30 frames of 440 Hz at ~8000 peak (RMS ~5657), marker on the first.
    const tone = received.slice(0, TONE_FRAMES);
    for (const p of tone) expect(mulawRms(p.payload)).toBeGreaterThan(5000);
    for (const p of tone) expect(mulawRms(p.payload)).toBeLessThan(6300);
    expect(frequencyOf(tone.map((p) => p.payload))).toBeCloseTo(440, -1);

    // Echo: byte-exact copies of the browser's last frames, in order (the earlier ones
    // arrived during the tone and were not echoed).
    const echoes = received.slice(TONE_FRAMES).map((p) => p.payload.toString('hex'));
    expect(echoes).toEqual(sent.slice(sent.length - echoes.length).map((b) => b.toString('hex')));
    expect(received.slice(TONE_FRAMES).filter((p) => mulawRms(p.payload) > VOICE_RMS_THRESHOLD)).toHaveLength(5);

    // RFC 3550: one SSRC of our own, consecutive sequence numbers, PCMU pt; RFC 3551 marker per talkspurt.
    const ssrc = received[0]?.header.ssrc;
    expect(ssrc).not.toBe(transceiver.sender.ssrc);
    received.forEach((p, i) => {
      expect(p.header.ssrc).toBe(ssrc);
      expect(p.header.payloadType).toBe(0);
      expect(p.header.marker).toBe(i === 0 || i === TONE_FRAMES);
      if (i > 0) expect(p.header.sequenceNumber).toBe(((received[i - 1]?.header.sequenceNumber ?? 0) + 1) & 0xffff);
      if (i > 0 && i !== TONE_FRAMES) {
        expect((p.header.timestamp - (received[i - 1]?.header.timestamp ?? 0)) >>> 0).toBe(160);
      }
    });

    await peer.close();
    await peer.close();
    expect(peer.phase).toBe('closed');
    const after = peer.counts().packetsToBrowser;
    await browser.close();
    // Node finishes closing a dgram handle one loop turn after werift's close() resolves.
    await until(() => resources('UDPWrap') === 0, 'UDP sockets released', 30_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(peer.counts().packetsToBrowser).toBe(after);
    expect(resources('Timeout')).toBeLessThanOrEqual(timersBefore);

    // Loopback only: every socket bound to and every datagram sent to 127.0.0.1 (no STUN, no mDNS).
    expect(bindAddresses.length).toBeGreaterThan(0);
    expect(new Set(bindAddresses)).toEqual(new Set(['127.0.0.1']));
    expect(new Set(sendTargets)).toEqual(new Set(['127.0.0.1']));
  }, 120_000);
});
