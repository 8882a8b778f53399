import type { RtpPacket } from 'werift';
import { mulawRms } from './g711.js';
import { PCMU_CLOCK_RATE, PCMU_PAYLOAD_TYPE, TELEPHONE_EVENT_PAYLOAD_TYPE } from './loopback-webrtc.js';
import { dtmfDigit, parseTelephoneEvent } from './telephone-event.js';

/**
 * What the simulated recipient hears of the browser's RTP: PCMU audio, counted and measured for voice, and
 * RFC 4733 telephone-events, counted apart and reported as DTMF digits once per event.
 */

/** RMS (linear int16) above which a packet counts as voiced; mu-law silence decodes to 0, its smallest step is 8. */
export const VOICE_RMS_THRESHOLD = 100;

/** Counters of the browser's packets, as the media peer reports them in `MediaCounts`. */
export interface InboundCounts {
  /** RTP audio packets received (PCMU), excluding telephone-event. */
  packetsFromBrowser: number;
  /** Payload bytes of those packets (PCMU: one byte per sample). */
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
  /** The payload type the browser's telephone-events carry: ours, unless {@link agreeTelephoneEvent} read another. */
  private telephoneEventType = TELEPHONE_EVENT_PAYLOAD_TYPE;

  constructor(private readonly now: () => number) {}

  /** Calls `listener` once per DTMF event, when its first end packet arrives. */
  onDtmf(listener: (digit: string) => void): void {
    this.dtmfListeners.push(listener);
  }

  /**
   * Takes the payload type of telephone-event on PCMU's clock from our answer to the browser's offer (the 2xx to
   * an offerless INVITE): the browser's own, which the answer keeps (RFC 3264 section 6.1; RFC 4733 section 7.1.1).
   * Returns the answer as it came.
   */
  agreeTelephoneEvent(answer: string): string {
    const type = new RegExp(`^a=rtpmap:(\\d+) telephone-event/${PCMU_CLOCK_RATE}\\s*$`, 'im').exec(answer)?.[1];
    if (type !== undefined) this.telephoneEventType = Number(type);
    return answer;
  }

  /** Counts one packet from the browser; true when it is PCMU audio, which the recipient may echo. */
  receive(rtp: RtpPacket): boolean {
    const pt = rtp.header.payloadType;
    if (pt === this.telephoneEventType) {
      this.counts.dtmfPacketsFromBrowser++; // RFC 4733 events are signalling, not audio: never echoed
      this.onTelephoneEvent(rtp);
      return false;
    }
    if (pt !== PCMU_PAYLOAD_TYPE) return false;
    this.counts.packetsFromBrowser++;
    this.counts.bytesFromBrowser += rtp.payload.length;
    if (mulawRms(rtp.payload) > VOICE_RMS_THRESHOLD) this.counts.voicedPacketsFromBrowser++;
    this.counts.lastPacketFromBrowserAt = this.now();
    return true;
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
