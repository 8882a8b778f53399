import { md5 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { DigestAuthentication } from 'sip.js/lib/core/messages/digest-authentication.js';
import type { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import { createRandomToken } from 'sip.js/lib/core/messages/utils.js';

/**
 * Digest authentication of the link's requests (RFC 3261 section 22.4, with the algorithms of RFC 8760 and the
 * computation of RFC 7616 section 3.4), in place of SIP.js's own, which computes MD5 only. The core asks for it
 * through its `authenticationFactory` and calls it as it calls SIP.js's: `authenticate()` with the challenge it
 * parsed, then `toString()` for the Authorization header. Both hashes are `@noble/hashes`' (audited, synchronous,
 * as the core's call is): its MD5 shares SHA-256's Merkle-Damgard core, where SIP.js's MD5 is a library of its
 * own in the bundle.
 */

/**
 * The algorithms the page computes, strongest first (RFC 8760 section 2.3: the client takes the strongest it
 * supports). SHA-512-256 is left out: the edges in use offer SHA-256 beside MD5, and its 64-bit arithmetic would
 * weigh on the script tag.
 */
const ALGORITHMS: ReadonlyArray<[string, (text: string) => string]> = [
  ['SHA-256', (text) => bytesToHex(sha256(utf8ToBytes(text)))],
  ['MD5', (text) => bytesToHex(md5(utf8ToBytes(text)))],
];

/** A challenge as SIP.js's grammar parses a WWW-Authenticate or Proxy-Authenticate header. */
export interface DigestChallenge {
  realm?: string;
  nonce?: string;
  opaque?: string;
  algorithm?: string;
  qop?: string[];
  stale?: boolean;
}

/** The rank of a challenge's algorithm among {@link ALGORITHMS} (absent is MD5, RFC 7616 section 3.3); -1 when the page cannot compute it. */
const rank = (header: string) => {
  const algorithm = /\balgorithm\s*=\s*"?([\w-]+)/i.exec(header)?.[1]?.toUpperCase() ?? 'MD5';
  return ALGORITHMS.findIndex(([name]) => name === algorithm);
};

/**
 * Keeps, of a 401's or 407's challenges, the strongest one the page computes, for the core to answer. SIP.js's
 * parser keeps only the last challenge of a response, whatever its algorithm, so the frame's own header lines are
 * read (unfolded, RFC 3261 section 7.3.1), and a registrar that offers several (RFC 8760 section 2.4) is
 * answered with the best of them in any order.
 */
export function keepStrongestChallenge(frame: string, message: IncomingResponseMessage): void {
  const name = message.statusCode === 401 ? 'WWW-Authenticate' : message.statusCode === 407 ? 'Proxy-Authenticate' : undefined;
  if (!name) return;
  const head = frame.slice(0, frame.indexOf('\r\n\r\n') >>> 0).replace(/\r\n[ \t]+/g, ' ');
  const offered = [...head.matchAll(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'gim'))].map((match) => match[1]!.trim());
  const usable = offered.filter((header) => rank(header) >= 0).sort((a, b) => rank(a) - rank(b));
  if (usable[0]) message.setHeader(name.toLowerCase(), usable[0]);
}

/** What the digest needs of the request it signs (an OutgoingRequestMessage's). */
interface SignedRequest {
  method: string;
  ruri: { toString(): string };
}

/**
 * The credentials of one link: answers a challenge for a request, counting `nc` per nonce (RFC 7616 section
 * 3.4), and remembers whether the registrar called the last nonce stale.
 */
export class DigestCredentials {
  /** Whether the registrar called the last nonce stale (RFC 7616 section 3.3), as SIP.js's credentials say it. */
  stale: boolean | undefined;
  #header = '';
  #nonce = '';
  #count = 0;
  readonly #user: string;
  readonly #password: string;
  readonly #cnonce: () => string;

  constructor(user: string, password: string, cnonce: () => string = () => createRandomToken(12)) {
    this.#user = user;
    this.#password = password;
    this.#cnonce = cnonce;
  }

  /**
   * Computes the answer to `challenge` for `request` (its body for `qop=auth-int`); false when the challenge asks
   * for what the page cannot compute, so the core reports the 401 as it came.
   */
  authenticate(request: SignedRequest, challenge: DigestChallenge, body?: string): boolean {
    const algorithm = (challenge.algorithm ?? 'MD5').toUpperCase();
    const hash = ALGORITHMS.find(([name]) => name === algorithm)?.[1];
    const qop = !challenge.qop ? undefined : challenge.qop.includes('auth') ? 'auth' : challenge.qop.includes('auth-int') ? 'auth-int' : null;
    if (!hash || qop === null || !challenge.nonce) return false;
    const { realm = '', nonce, opaque } = challenge;
    this.#count = nonce === this.#nonce ? this.#count + 1 : 1;
    this.#nonce = nonce;
    this.stale = challenge.stale;
    const nc = this.#count.toString(16).padStart(8, '0');
    const cnonce = this.#cnonce();
    const uri = request.ruri.toString();
    const ha1 = hash(`${this.#user}:${realm}:${this.#password}`);
    const ha2 = hash(qop === 'auth-int' ? `${request.method}:${uri}:${hash(body ?? '')}` : `${request.method}:${uri}`);
    const response = hash(qop ? `${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}` : `${ha1}:${nonce}:${ha2}`);
    const params = [`Digest algorithm=${algorithm}`, `username="${this.#user}"`, `realm="${realm}"`, `nonce="${nonce}"`, `uri="${uri}"`, `response="${response}"`];
    if (opaque) params.push(`opaque="${opaque}"`);
    if (qop) params.push(`qop=${qop}`, `cnonce="${cnonce}"`, `nc=${nc}`);
    this.#header = params.join(', ');
    return true;
  }

  /** The Authorization (or Proxy-Authorization) header's value for the last challenge answered. */
  toString(): string {
    return this.#header;
  }
}

/**
 * The credentials as the core's configuration types them. SIP.js types them by its own class, whose private
 * fields no other class can match; the core calls only what the `Pick` names, which the parameter's type holds
 * the credentials to.
 */
export function coreCredentials(credentials: Pick<DigestAuthentication, 'authenticate' | 'toString' | 'stale'>): DigestAuthentication {
  return credentials as DigestAuthentication;
}
