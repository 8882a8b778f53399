import { randomBytes } from 'node:crypto';
import type { Body } from 'sip.js/lib/core/index.js';
import type { EdgeBehaviour, EdgeSettings } from './edge-profile.js';

/**
 * What an edge's INVITE carries beyond the service's own headers: the option tags, timers and bodies of the
 * profile (`EDGE_PROFILES`), and what the dialog must do about them once the page answers.
 */

/** How the dialog (`InviteDialog`) treats an INVITE of the profile. */
export interface InviteEdgeRules {
  /** RFC 3262 section 4: reliable provisional responses are PRACKed. */
  prack: boolean;
  /** RFC 4028 section 7.4: the service refreshes the session every half of this many seconds; undefined: never. */
  sessionRefreshSeconds: number | undefined;
  /** RFC 3261 section 13.2.1: the INVITE carried no offer, so the page's 2xx brings one and the ACK our answer. */
  offerless: boolean;
}

/** The headers, body and rules of an INVITE as the profile sends it. */
export interface InviteShape {
  extraHeaders: string[];
  body: Body | undefined;
  rules: InviteEdgeRules;
}

/**
 * An ISUP IAM (ITU-T Q.763) stand-in, as a carrier's gateway attaches it (RFC 3204): its content is opaque to
 * the page, which must take the SDP part and leave this one.
 */
const ISUP_PART = Buffer.from([0x01, 0x00, 0x49, 0x00, 0x00, 0x03, 0x02, 0x00, 0x07, 0x04, 0x10, 0x00, 0x33, 0x63, 0x21, 0x43, 0x00, 0x00, 0x03]).toString('latin1');

/** A `multipart/mixed` body (RFC 2046 section 5.1.3, RFC 5621) of the SDP offer and an ISUP part. */
export function multipartWithIsup(sdp: string): Body {
  const boundary = `sim-${randomBytes(6).toString('hex')}`;
  const content = [
    `--${boundary}`,
    'Content-Type: application/sdp',
    '',
    sdp.replace(/\r?\n$/, ''),
    `--${boundary}`,
    'Content-Type: application/isup;version=itu-t92+',
    'Content-Disposition: signal;handling=optional',
    '',
    ISUP_PART,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  return { contentDisposition: 'session', contentType: `multipart/mixed;boundary=${boundary}`, content };
}

/**
 * The INVITE of `behaviour` for an offer `offerSdp`. An offerless INVITE is sent only when the leg can answer an
 * offer (`canAnswerOffer`); otherwise the offer goes as the profile's other body would carry it.
 */
export function inviteShape(behaviour: EdgeBehaviour, settings: EdgeSettings, offerSdp: string, canAnswerOffer: boolean): InviteShape {
  const headers: string[] = [];
  if (behaviour.require100rel) headers.push('Require: 100rel');
  if (behaviour.sessionTimer) {
    // RFC 4028 section 7.1: the UAC asks for the interval and names itself the refresher.
    headers.push(`Session-Expires: ${settings.sessionExpiresSeconds};refresher=uac`, `Min-SE: ${Math.min(90, settings.sessionExpiresSeconds)}`);
  }
  if (behaviour.inviteExpiresSeconds !== undefined) headers.push(`Expires: ${behaviour.inviteExpiresSeconds}`);
  const offerless = behaviour.inviteBody === 'offerless' && canAnswerOffer;
  const sdpBody: Body = { contentDisposition: 'session', contentType: 'application/sdp', content: offerSdp };
  const body = offerless ? undefined : behaviour.inviteBody === 'multipart' ? multipartWithIsup(offerSdp) : sdpBody;
  return {
    extraHeaders: headers,
    body,
    rules: { prack: behaviour.require100rel, sessionRefreshSeconds: behaviour.sessionTimer ? settings.sessionExpiresSeconds / 2 : undefined, offerless },
  };
}

/**
 * The SDP of an offer sent again in the dialog (a session refresh, a hold): the same session with its version
 * raised (RFC 3264 section 8) and every media stream's direction set to `direction`.
 */
export function reofferSdp(sdp: string, version: number, direction: 'sendrecv' | 'sendonly'): string {
  const versioned = sdp.replace(/^(o=\S+ \S+ )(\d+)/m, (_, prefix: string, base: string) => `${prefix}${BigInt(base) + BigInt(version)}`);
  const directed = versioned.replace(/^a=(sendrecv|sendonly|recvonly|inactive)\r?$/gm, `a=${direction}\r`);
  return /^a=(sendrecv|sendonly|recvonly|inactive)/m.test(directed) ? directed : directed.replace(/^(m=audio .*\r?\n)/m, `$1a=${direction}\r\n`);
}
