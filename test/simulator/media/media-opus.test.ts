import { describe, expect, it } from 'vitest';
import { RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket } from 'werift';
import { agreedAudio, opusParameters } from '../../../simulator/media/agreed-audio.js';
import { createOpusCodec } from '../../../simulator/media/audio-codec.js';
import { mulawRms } from '../../../simulator/media/g711.js';
import { disableStun, loopbackPeerConfig } from '../../../simulator/media/loopback-webrtc.js';
import { createMediaPeer } from '../../../simulator/media/media.js';
import { frequencyOf, voicedFrame } from '../support/audio.js';
import { waitFor } from '../support/sim-api.js';

/**
 * The simulator's media peer with a browser that speaks Opus (a werift peer in this process, on loopback): the
 * call runs on Opus both ways, the tone and the echo are heard through a decoder, the page's audio is decoded
 * for the ears, and DTMF comes on telephone-event at Opus's clock (RFC 4733 section 2.1).
 */

/** Waits until `cond` holds, within the 30 s these werift calls are given. */
const until = (cond: () => boolean, what: string) => waitFor(() => cond() || undefined, what, 30_000);

describe('media peer on Opus', () => {
  it('agrees the first format of an answer it speaks, and reads Opus parameters', () => {
    const answer = 'm=audio 9 UDP/TLS/RTP/SAVPF 109 0 101\r\na=rtpmap:109 opus/48000/2\r\na=fmtp:109 useinbandfec=1;stereo=0\r\na=rtpmap:101 telephone-event/8000\r\n';
    expect(agreedAudio(answer)).toEqual({ codec: 'opus', payloadType: 109, telephoneEvents: [101] });
    expect(agreedAudio('m=audio 9 UDP/TLS/RTP/SAVPF 0 8\r\n')).toEqual({ codec: 'pcmu', payloadType: 0, telephoneEvents: [] });
    expect(opusParameters(answer)).toBe('useinbandfec=1;stereo=0');
    expect(opusParameters('m=audio 9 UDP/TLS/RTP/SAVPF 0\r\n')).toBeNull();
  });

  it('plays its tone in Opus, hears and echoes the page in Opus, and hears its digits at 48 kHz', async () => {
    const peer = createMediaPeer({ toneMs: 600 });
    const digits: string[] = [];
    peer.onDtmf((digit) => digits.push(digit));
    const browser = new RTCPeerConnection({
      ...loopbackPeerConfig(),
      codecs: {
        audio: [
          new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2, payloadType: 111, parameters: 'minptime=10;useinbandfec=1' }),
          new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 48_000, payloadType: 110, parameters: '0-16' }),
        ],
        video: [],
      },
    });
    const [encoder, decoder] = [createOpusCodec(), createOpusCodec()];
    const heard: Buffer[] = [];
    browser.onTrack.subscribe((track) => track.onReceiveRtp.subscribe((rtp) => heard.push(decoder.decode(rtp.payload))));
    await browser.setRemoteDescription({ type: 'offer', sdp: await peer.createOffer() });
    disableStun(browser);
    const transceiver = browser.getTransceivers()[0];
    if (!transceiver) throw new Error('no transceiver from the offer');
    transceiver.setDirection('sendrecv');
    await browser.setLocalDescription(await browser.createAnswer());
    await peer.acceptAnswer(browser.localDescription?.sdp ?? '');
    await peer.connected;
    await until(() => browser.connectionState === 'connected', 'browser connected');
    expect(peer.counts().codec).toBe('opus');

    // The tone, through the decoder: 440 Hz near its sent level, once the decoder has settled.
    await until(() => heard.length >= 25, 'the tone at the browser');
    const tone = heard.slice(5, 25);
    expect(frequencyOf(tone)).toBeCloseTo(440, -1);
    for (const frame of tone) expect(mulawRms(frame)).toBeGreaterThan(4000);

    // The page speaks 523 Hz in Opus for 2 s; a digit on telephone-event/48000 beside it.
    let seq = 1;
    for (let k = 0; k < 100; k++) {
      void transceiver.sender.sendRtp(new RtpPacket(new RtpHeader({ payloadType: 111, sequenceNumber: seq++, timestamp: k * 960 }), encoder.encode(voicedFrame(k))));
      if (k === 10) {
        for (let i = 0; i < 3; i++) {
          const header = new RtpHeader({ payloadType: 110, sequenceNumber: seq++, timestamp: 9600, ssrc: transceiver.sender.ssrc });
          void transceiver.dtlsTransport.sendRtp(Buffer.from([7, 0x80 | 10, 0x03, 0xc0]), header);
        }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await until(() => peer.counts().packetsFromBrowser === 100, 'the page audio at the peer');
    expect(peer.counts().voicedPacketsFromBrowser).toBeGreaterThan(90);
    expect(digits).toEqual(['7']);
    // The echo: the page's own 523 Hz, decoded, encoded again and decoded here.
    await until(() => heard.length >= 30 + 60, 'the echo at the browser');
    expect(frequencyOf(heard.slice(-40))).toBeCloseTo(523, -1);
    encoder.close();
    decoder.close();
    await Promise.all([peer.close(), browser.close()]);
  }, 60_000);
});
