import type { BodyAndContentType, SessionDescriptionHandler, SessionDescriptionHandlerFactory } from 'sip.js';

/**
 * A SessionDescriptionHandler for SIP.js in Node, where there is no WebRTC: it answers any offer with a canned
 * SDP, so signalling tests can accept INVITEs without media.
 *
 * @remarks
 * The answer names one host candidate, 127.0.0.1 on the discard port (RFC 863), where nothing listens on the
 * test machine: the simulator's ICE checks go nowhere but loopback and then fail, which the call survives.
 */

/** The only port the canned answer names; UDP 9 on loopback has no listener here. */
export const SILENT_LOOPBACK_PORT = 9;

/** An SDP answer (RFC 3264 section 6) to `offer`: PCMU plus telephone-event, one 127.0.0.1 candidate. */
export function cannedAnswer(offer: string): string {
  // RFC 5888: the answer's m-line keeps the offer's mid, or the BUNDLE group does not match it.
  const mid = /^a=mid:(\S+)/m.exec(offer)?.[1] ?? '0';
  const fingerprint = Array.from({ length: 32 }, (_, i) => (i * 7 + 16).toString(16).toUpperCase().padStart(2, '0')).join(':');
  return [
    'v=0',
    'o=- 4242 1 IN IP4 127.0.0.1',
    's=-',
    't=0 0',
    `a=group:BUNDLE ${mid}`,
    `m=audio ${SILENT_LOOPBACK_PORT} UDP/TLS/RTP/SAVPF 0 101`,
    'c=IN IP4 127.0.0.1',
    `a=candidate:1 1 udp 2122260223 127.0.0.1 ${SILENT_LOOPBACK_PORT} typ host`,
    'a=end-of-candidates',
    'a=ice-ufrag:fake',
    'a=ice-pwd:fakefakefakefakefakefake',
    `a=fingerprint:sha-256 ${fingerprint}`,
    'a=setup:active', // RFC 5763 section 5: the answerer to actpass picks a role
    `a=mid:${mid}`,
    'a=sendrecv',
    'a=rtcp-mux',
    'a=rtpmap:0 PCMU/8000',
    'a=rtpmap:101 telephone-event/8000',
    'a=fmtp:101 0-16',
    '',
  ].join('\r\n');
}

/** Holds the remote offer and answers it; sends no media and no in-band DTMF. */
export class FakeSessionDescriptionHandler implements SessionDescriptionHandler {
  remoteSdp: string | undefined;
  closed = false;

  close(): void {
    this.closed = true;
  }

  async getDescription(): Promise<BodyAndContentType> {
    if (this.remoteSdp === undefined) throw new Error('the fake handler only answers; it got no offer');
    return { body: cannedAnswer(this.remoteSdp), contentType: 'application/sdp' };
  }

  hasDescription(contentType: string): boolean {
    return contentType === 'application/sdp';
  }

  async setDescription(sdp: string): Promise<void> {
    this.remoteSdp = sdp;
  }

  /** There is no media path to carry RFC 4733 events: tones are never sent (SIP INFO carries DTMF here). */
  sendDtmf(): boolean {
    return false;
  }
}

export const fakeSdhFactory: SessionDescriptionHandlerFactory = () => new FakeSessionDescriptionHandler();
