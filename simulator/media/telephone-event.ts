/**
 * RFC 4733 telephone-events, as the simulator reads them from the browser's RTP: the payload and which
 * events are DTMF digits.
 */

/** One RFC 4733 telephone-event payload (section 2.3). */
export interface TelephoneEvent {
  event: number;
  /** E bit: this packet ends the event. */
  end: boolean;
  /** Power level in -dBm0, 0-63. */
  volume: number;
  /** In RTP timestamp units since the event's start. */
  duration: number;
}

/**
 * Parses an RFC 4733 section 2.3 payload: event (8 bits), E, R, volume (6 bits), duration (16 bits).
 * Undefined when shorter than 4 bytes; of a packet carrying several event blocks, only the first is read.
 */
export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | undefined {
  if (payload.length < 4) return undefined;
  const [event = 0, flags = 0, high = 0, low = 0] = payload;
  return { event, end: (flags & 0x80) !== 0, volume: flags & 0x3f, duration: (high << 8) | low };
}

/** RFC 4733 section 3 (IANA telephone-event registry): events 0-15 are DTMF digits; others (flash, tones) are not. */
export function dtmfDigit(event: number): string | undefined {
  return event >= 0 && event <= 15 ? '0123456789*#ABCD'[event] : undefined;
}
