/**
 * Keeps a call's new offer (an ICE restart's re-INVITE) to the codecs the call agreed. A browser's new offer
 * lists every codec it has; behind a gateway that does not transcode, the far end could answer with another
 * one than the call runs on. Pure over SDP text; the call's media handler applies it to the offer it sends.
 * Part of the SIP chunk.
 */

/**
 * The audio formats of an SDP by payload type, each named as an answer must name it to agree: a static payload
 * type (under 35, RFC 3551 section 6) by its number, which needs no rtpmap; a dynamic one by its rtpmap
 * (`telephone-event/8000`, lower case). The helper's descriptions have one m-section, the audio.
 */
function codecsOf(sdp: string): Map<string, string> {
  const codecs = new Map<string, string>();
  for (const type of /^m=audio \S+ \S+ (.*)/m.exec(sdp)?.[1]?.split(' ') ?? []) codecs.set(type, type);
  for (const [, type = '', name = ''] of sdp.matchAll(/^a=rtpmap:(\d+) (\S+)/gm)) if (+type > 34) codecs.set(type, name.toLowerCase());
  return codecs;
}

/**
 * `offer` with only the audio formats `answer` (the call's current answer) agreed: the m-line's format list and
 * their `rtpmap`, `fmtp` and `rtcp-fb` lines, Opus asked in mono. Unchanged when none of its formats was agreed
 * (an answer it cannot read is no reason to send an offer that lists nothing).
 */
export function keepAgreedCodecs(offer: string, answer: string): string {
  const agreed = new Set(codecsOf(answer).values());
  const kept = [...codecsOf(offer)].filter(([, codec]) => agreed.has(codec)).map(([type]) => type);
  if (kept.length === 0) return offer;
  return offer
    .replace(/^(m=audio \S+ \S+ ).*/m, `$1${kept.join(' ')}`)
    .replace(/^a=(?:rtpmap|fmtp|rtcp-fb):(\d+) .*\r\n/gm, (line, type: string) => (kept.includes(type) ? line : ''))
    // A voice call is mono: Firefox's offers ask Opus in stereo (RFC 7587 section 6.1), which a re-offer must not.
    .replace(/stereo=1/g, 'stereo=0');
}
