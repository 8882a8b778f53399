import type { CodecName } from './audio-codec.js';

/**
 * What an SDP answer agreed for a call's audio (RFC 3264 section 6.1: the answer's formats, in its order of
 * preference, are those both ends use): the codec the audio runs on, its payload type, and the payload types of
 * RFC 4733 telephone-events, on any clock (RFC 4733 section 2.1: a sender uses the one on its codec's clock).
 */

/** The audio a call agreed: its codec and payload type, and its telephone-events' payload types. */
export interface AgreedAudio {
  codec: CodecName;
  payloadType: number;
  telephoneEvents: number[];
}

/** Static payload type of PCMU (RFC 3551 table 4). */
const PCMU = 0;

/**
 * The first format of the answer's audio section that the simulator speaks (Opus by its rtpmap, PCMU by its
 * static type), and every telephone-event's type; PCMU when the answer names neither.
 */
export function agreedAudio(answer: string): AgreedAudio {
  const formats = /^m=audio \S+ \S+ (.*)$/m.exec(answer)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  const names = new Map([...answer.matchAll(/^a=rtpmap:(\d+) ([^/\s]+)/gm)].map(([, type, name = '']) => [Number(type), name.toLowerCase()]));
  const telephoneEvents = formats.filter((type) => names.get(type) === 'telephone-event');
  for (const type of formats) {
    if (names.get(type) === 'opus') return { codec: 'opus', payloadType: type, telephoneEvents };
    if (type === PCMU) return { codec: 'pcmu', payloadType: PCMU, telephoneEvents };
  }
  return { codec: 'pcmu', payloadType: PCMU, telephoneEvents };
}

/** The `a=fmtp` parameters of the offer's or answer's Opus, as written (RFC 7587 section 6.1), or null when it has none. */
export function opusParameters(sdp: string): string | null {
  const type = /^a=rtpmap:(\d+) opus\//im.exec(sdp)?.[1];
  if (type === undefined) return null;
  return new RegExp(`^a=fmtp:${type} (.*?)\\s*$`, 'm').exec(sdp)?.[1] ?? '';
}
