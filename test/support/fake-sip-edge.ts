import { createHash, randomBytes } from 'node:crypto';

/**
 * A SIP edge and registrar as the page's sockets meet it (fake-sip-socket.ts), scriptable into the edges we did
 * not write: it confirms outbound or not (RFC 5626 section 6), answers double-CRLF pings or not (OpenSIPS,
 * Asterisk and FreeSWITCH send no pong), answers OPTIONS, challenges with digest in the algorithms and order it is
 * given (RFC 8760) and checks the answer, calls nonces stale, asks for a least binding time (`423`, RFC 3261
 * section 10.2.8), refuses or ignores the REGISTERs it is told to, and goes away (its sockets fail their
 * handshake) while `down`.
 */

/** A scripted answer to the next REGISTER: a status, one with headers (`Retry-After: 30`), or none at all. */
export type EdgeAnswer = number | { status: number; headers?: string[] } | 'silence';

/** RFC 7616 section 3.4's hashes, computed here apart from the page's. */
const HASH: Record<string, string> = { MD5: 'md5', 'SHA-256': 'sha256' };
const digest = (algorithm: string, text: string) => createHash(HASH[algorithm] ?? 'md5').update(text).digest('hex');

const header = (message: string, name: string) => message.match(new RegExp(`^${name}:\\s*(.*)$`, 'im'))?.[1]?.trim() ?? '';

export class FakeSipEdge {
  /** Its 2xx to a REGISTER with `reg-id` says `Require: outbound`. */
  outbound = true;
  /** It answers a double-CRLF ping with a CRLF pong. */
  pongs = true;
  /** It answers OPTIONS (200). */
  options = true;
  /** Away (a restart, a switch-over): every new socket fails its handshake. */
  down = false;
  /** The digest algorithms each challenge offers, one WWW-Authenticate each, in this order; none: no challenge. */
  challenges: string[] = [];
  /** The password the digest is checked against (the fake backend's). */
  password = 'temporary';
  /** The next REGISTER that carries an answer is challenged again `stale=true`, whatever its nonce (once). */
  staleNext = false;
  /** The least binding time it takes; a REGISTER asking less is answered `423` (RFC 3261 section 10.2.8). */
  minExpires = 0;
  /** The answers of the next REGISTERs on any socket, before anything else. */
  readonly answers: EdgeAnswer[] = [];
  /** The Authorization of each REGISTER, as sent ('' for none). */
  readonly authorizations: string[] = [];
  /** Each REGISTER: when it came, and for how long it asked. */
  readonly registers: Array<{ at: number; expires: number }> = [];
  /** When the page's binding runs out, by `Date.now()`: 0 before the first and after the last is removed. */
  boundUntil = 0;
  /** Every OPTIONS that came, by `Date.now()`. */
  readonly queries: number[] = [];
  /** Nonces issued, and whether they are called stale now. */
  readonly #nonces = new Map<string, boolean>();

  /** Calls every nonce issued so far stale: the next REGISTER over one is answered `401 ... stale=true`. */
  staleNonces(): void {
    for (const nonce of this.#nonces.keys()) this.#nonces.set(nonce, true);
  }

  /** The edge's answer to one message from the page; undefined for none. `refusal` is the socket's own script. */
  answer(message: string, refusal?: number): string | undefined {
    if (message === '\r\n\r\n') return this.pongs ? '\r\n' : undefined;
    if (message.startsWith('OPTIONS ')) {
      this.queries.push(Date.now());
      return this.options ? reply(message, '200 OK', ['Allow: INVITE, ACK, BYE, CANCEL, OPTIONS, REGISTER']) : undefined;
    }
    if (!message.startsWith('REGISTER ')) return undefined;
    const contact = header(message, 'Contact');
    const expires = Number(/;expires=(\d+)/.exec(contact)?.[1] ?? (header(message, 'Expires') || '3600'));
    this.registers.push({ at: Date.now(), expires });
    this.authorizations.push(header(message, 'Authorization'));
    if (refusal) return reply(message, `${refusal} Refused`);
    const scripted = this.answers.shift();
    if (scripted === 'silence') return undefined;
    if (scripted !== undefined) return typeof scripted === 'number' ? reply(message, `${scripted} Scripted`) : reply(message, `${scripted.status} Scripted`, scripted.headers);
    if (expires > 0 && expires < this.minExpires) return reply(message, '423 Interval Too Brief', [`Min-Expires: ${this.minExpires}`]);
    const challenge = this.#check(message);
    if (challenge) return challenge;
    this.boundUntil = expires > 0 ? Date.now() + expires * 1000 : 0;
    const require = this.outbound && /;reg-id=/.test(contact) ? ['Require: outbound'] : [];
    return reply(message, '200 OK', [`Contact: ${contact.replace(/;expires=\d+/, '')};expires=${expires}`, `Expires: ${expires}`, ...require]);
  }

  /** The digest's verdict: a challenge (fresh, or stale), a refusal, or undefined when it holds or none is asked. */
  #check(message: string): string | undefined {
    if (!this.challenges.length) return undefined;
    const params = Object.fromEntries([...header(message, 'Authorization').matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)].map(([, name, quoted, bare]) => [name, quoted ?? bare]));
    if (params.nonce === undefined) return this.#challenge(message, false);
    if (!this.#nonces.has(params.nonce)) return reply(message, '403 Unknown Nonce');
    if (this.#nonces.get(params.nonce) || this.staleNext) {
      this.staleNext = false;
      return this.#challenge(message, true);
    }
    const algorithm = params.algorithm ?? 'MD5';
    const ha1 = digest(algorithm, `${params.username}:${params.realm}:${this.password}`);
    const ha2 = digest(algorithm, `REGISTER:${params.uri}`);
    const expected = digest(algorithm, params.qop ? `${ha1}:${params.nonce}:${params.nc}:${params.cnonce}:${params.qop}:${ha2}` : `${ha1}:${params.nonce}:${ha2}`);
    return expected === params.response && this.challenges.includes(algorithm) ? undefined : reply(message, '403 Wrong Digest');
  }

  #challenge(message: string, stale: boolean): string {
    const nonce = randomBytes(8).toString('hex');
    this.#nonces.set(nonce, false);
    const offers = this.challenges.map((algorithm) => `WWW-Authenticate: Digest realm="edge", nonce="${nonce}", algorithm=${algorithm}, qop="auth"${stale ? ', stale=true' : ''}`);
    return reply(message, '401 Unauthorized', offers);
  }
}

/** A response to `request` with its dialog headers and `extra`. */
function reply(request: string, status: string, extra: string[] = []): string {
  const vias = request.match(/^Via:.*$/gim) ?? [];
  return [
    `SIP/2.0 ${status}`,
    ...vias,
    `From: ${header(request, 'From')}`,
    `To: ${header(request, 'To')};tag=edge`,
    `Call-ID: ${header(request, 'Call-ID')}`,
    `CSeq: ${header(request, 'CSeq')}`,
    ...extra,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}
