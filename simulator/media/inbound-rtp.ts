import type { RtpPacket } from 'werift';
import { mulawRms } from './g711.js';
import { agreedAudio } from './agreed-audio.js';
import { pcmuCodec, type AudioCodec } from './audio-codec.js';
import { PCMU_PAYLOAD_TYPE, TELEPHONE_EVENT_PAYLOAD_TYPE } from './loopback-webrtc.js';
import { dtmfDigit, parseTelephoneEvent } from './telephone-event.js';

/**
 * What the simulated recipient hears of the browser's RTP: audio in the agreed codec (PCMU or Opus), counted,
 * decoded to mu-law frames and measured for voice, and RFC 4733 telephone-events, counted apart and reported as
 * DTMF digits once per event.
 */

/** RMS (linear int16) above which a packet counts as voiced; mu-law silence decodes to 0, its smallest step is 8. */
export const VOICE_RMS_THRESHOLD = 100;

/** Counters of the browser's packets, as the media peer reports them in `MediaCounts`. */
export interface InboundCounts {
  /** RTP audio packets received (PCMU or Opus), excluding telephone-event. */
  packetsFromBrowser: number;
  /** Payload bytes of those packets, as they came (PCMU: one byte per sample). */
  bytesFromBrowser: number;
  /** Packets whose decoded mu-law RMS exceeds {@link VOICE_RMS_THRESHOLD}; lets tests see mute. */
  voicedPacketsFromBrowser: number;
  /** RFC 4733 telephone-event (DTMF) packets received; not included above. */
  dtmfPacketsFromBrowser: number;
  /** Epoch ms (per the clock given) of the last PCMU packet received, or null. */
  lastPacketFromBrowserAt: number | null;
}

/** How many recent events' timestamps are remembered, so that their repeated end packets are not reported again. */
const REMEMBERED_EVENTS = 8;

/** Counts the browser's packets and reports its DTMF digits. */
export class InboundRtp {
  readonly counts: InboundCounts = {
    packetsFromBrowser: 0,
    bytesFromBrowser: 0,
    voicedPacketsFromBrowser: 0,
    dtmfPacketsFromBrowser: 0,
    lastPacketFromBrowserAt: null,
  };
  private readonly dtmfListeners: Array<(digit: string) => void> = [];
  // RFC 4733 section 2.5.1.4: an event's end packet is sent three times, all with the event's timestamp;
  // remembering the last few reported timestamps also absorbs a late retransmission.
  private readonly reportedEvents: number[] = [];
  /** The payload types the browser's telephone-events carry: ours, unless {@link agree} read others. */
  private telephoneEventTypes = [TELEPHONE_EVENT_PAYLOAD_TYPE];
  /** The audio's payload type and codec: PCMU until {@link agree} read the call's. */
  private audioType = PCMU_PAYLOAD_TYPE;
  private codec: AudioCodec = pcmuCodec;

  constructor(private readonly now: () => number) {}

  /** Calls `listener` once per DTMF event, when its first end packet arrives. */
  onDtmf(listener: (digit: string) => void): void {
    this.dtmfListeners.push(listener);
  }

  /**
   * Takes the call's audio from its answer (`agreedAudio`): the payload types the browser sends audio and
   * telephone-events on (in the 2xx to an offerless INVITE, the browser's own, which our answer keeps: RFC 3264
   * section 6.1; RFC 4733 section 7.1.1), and the codec that reads its audio.
   */
  agree(answer: string, codec: AudioCodec): void {
    const agreed = agreedAudio(answer);
    this.audioType = agreed.payloadType;
    if (agreed.telephoneEvents.length > 0) this.telephoneEventTypes = agreed.telephoneEvents;
    this.codec = codec;
  }

  /** Counts one packet from the browser; its audio as mu-law frames, which the recipient may echo, or none. */
  receive(rtp: RtpPacket): Buffer | undefined {
    const pt = rtp.header.payloadType;
    if (this.telephoneEventTypes.includes(pt)) {
      this.counts.dtmfPacketsFromBrowser++; // RFC 4733 events are signalling, not audio: never echoed
      this.onTelephoneEvent(rtp);
      return undefined;
    }
    if (pt !== this.audioType) return undefined;
    this.counts.packetsFromBrowser++;
    this.counts.bytesFromBrowser += rtp.payload.length;
    const frames = this.codec.decode(rtp.payload);
    if (mulawRms(frames) > VOICE_RMS_THRESHOLD) this.counts.voicedPacketsFromBrowser++;
    this.counts.lastPacketFromBrowserAt = this.now();
    return frames;
  }

  private onTelephoneEvent(rtp: RtpPacket): void {
    const event = parseTelephoneEvent(rtp.payload);
    const digit = event?.end ? dtmfDigit(event.event) : undefined;
    // RFC 4733: every packet of one event carries the event's start as its RTP timestamp, which tells events apart.
    if (!digit || this.reportedEvents.includes(rtp.header.timestamp)) return;
    this.reportedEvents.push(rtp.header.timestamp);
    if (this.reportedEvents.length > REMEMBERED_EVENTS) this.reportedEvents.shift();
    for (const listener of this.dtmfListeners) listener(digit);
  }
}
