import { randomInt } from 'node:crypto';
import { RtpHeader, RtpPacket, type RTCRtpSender } from 'werift';
import { pcmuCodec, type AudioCodec } from './audio-codec.js';
import { PCMU_CLOCK_RATE, PCMU_PAYLOAD_TYPE } from './loopback-webrtc.js';

/**
 * The recipient's audio stream to the browser (RFC 3550, RFC 3551), its 8 kHz mu-law frames encoded in the
 * call's codec: sequence numbers and timestamps from a random start, a timestamp on the codec's clock that
 * follows the sampling clock across silent gaps, and the marker on the first packet of each talkspurt. werift
 * fills in the SSRC and the negotiated payload type.
 */

/** One call's outgoing audio, packet by packet, as the tone (`TonePlayer`) and the echo (the media peer) hand it over. */
export class AudioSender {
  /** RTP packets handed to werift for sending. */
  sent = 0;
  // RFC 3550 section 5.1: initial sequence number and timestamp should be random.
  // werift's sender adds zero offsets to what we give it, so randomise here.
  private seq = randomInt(0x10000);
  private ts = randomInt(0x100000000);
  /** now() when media started, and the timestamp then, to map wall time to RTP time. */
  private startedAt = 0;
  private startTs = 0;
  private talkspurtStarts = true;
  /** The codec the call agreed: PCMU until the media peer reads its answer. */
  codec: AudioCodec = pcmuCodec;
  /** The call is held: frames are dropped here, none counted as sent, and the next after it opens a talkspurt. */
  paused = false;

  constructor(
    private readonly sender: Pick<RTCRtpSender, 'sendRtp'>,
    private readonly now: () => number,
  ) {}

  /** Media flows from now: later talkspurts' timestamps are counted from this instant. */
  start(): void {
    this.startedAt = this.now();
    this.startTs = this.ts;
  }

  /** The next packet opens a talkspurt: it carries the marker, and its timestamp skips the silence before it. */
  newTalkspurt(): void {
    this.talkspurtStarts = true;
  }

  /** Sends one mu-law frame in the call's codec; a failed send is dropped, as a lost packet would be. */
  send(frame: Buffer): void {
    if (this.paused) return;
    let marker = false;
    if (this.talkspurtStarts) {
      // RFC 3551 section 4.1: mark the first packet of a talkspurt, and let the
      // timestamp jump by the silent gap (RFC 3550 section 5.1: it tracks the sampling clock).
      marker = true;
      this.talkspurtStarts = false;
      const wallTs = (this.startTs + Math.round(((this.now() - this.startedAt) * this.codec.clockRate) / 1000)) >>> 0;
      if (((wallTs - this.ts) >>> 0) < 0x80000000) this.ts = wallTs;
    }
    const header = new RtpHeader({ payloadType: PCMU_PAYLOAD_TYPE, sequenceNumber: this.seq, timestamp: this.ts, marker });
    this.seq = (this.seq + 1) & 0xffff;
    // A mu-law frame holds one byte per 8 kHz sample; the timestamp counts them on the codec's clock.
    this.ts = (this.ts + (frame.length * this.codec.clockRate) / PCMU_CLOCK_RATE) >>> 0;
    this.sent++;
    // SSRC is filled in by werift (sender.ssrc), as is the negotiated payload type.
    this.sender.sendRtp(new RtpPacket(header, this.codec.encode(frame))).catch(() => undefined);
  }
}
