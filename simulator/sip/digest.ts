import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Server side of SIP digest authentication (RFC 3261 section 22, RFC 2617 with qop=auth): MD5, and SHA-256 as
 * RFC 8760 adds it (RFC 7616 section 3.4's computations with the algorithm's hash).
 */

/** The digest algorithms the registrar challenges with (RFC 8760 section 2.1). */
export type DigestAlgorithm = 'MD5' | 'SHA-256';

const HASHES: Record<DigestAlgorithm, string> = { MD5: 'md5', 'SHA-256': 'sha256' };
const hash = (algorithm: DigestAlgorithm, text: string): string => createHash(HASHES[algorithm]).update(text).digest('hex');

/** A fresh nonce: 128 random bits, hex. */
export function createNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The `WWW-Authenticate` value of a 401 challenge; `stale` says only the nonce was out of date (RFC 2617 section 3.2.1). */
export function challengeHeader(realm: string, nonce: string, stale = false, algorithm: DigestAlgorithm = 'MD5'): string {
  return `Digest realm="${realm}", nonce="${nonce}", algorithm=${algorithm}, qop="auth"${stale ? ', stale=true' : ''}`;
}

/** Parses the parameters of an `Authorization: Digest ...` header value; undefined when it is not Digest. */
export function parseDigest(value: string): Record<string, string> | undefined {
  const match = /^\s*Digest\s+(.*)$/is.exec(value);
  if (!match?.[1]) return undefined;
  const params: Record<string, string> = {};
  // auth-param = token "=" ( token / quoted-string ), RFC 7235 section 2.1
  const pattern = /([a-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/gi;
  for (const part of match[1].matchAll(pattern)) {
    const key = part[1]?.toLowerCase();
    if (key) params[key] = part[2] !== undefined ? part[2].replace(/\\(.)/g, '$1') : (part[3] ?? '');
  }
  return params;
}

export interface DigestCheck {
  method: string;
  params: Record<string, string>;
  password: string;
  realm: string;
  nonce: string;
  /** The algorithms the registrar challenged with; default MD5 alone. */
  algorithms?: readonly DigestAlgorithm[];
}

/** True when the client's `response` proves knowledge of the password for this nonce (constant-time compare). */
export function verifyDigest({ method, params, password, realm, nonce, algorithms = ['MD5'] }: DigestCheck): boolean {
  const { username, uri, response, qop, nc, cnonce } = params;
  if (!username || !uri || !response || params.realm !== realm || params.nonce !== nonce) return false;
  // RFC 7616 section 3.4: an answer without the parameter is MD5's.
  const algorithm = algorithms.find((name) => name === (params.algorithm ?? 'MD5').toUpperCase());
  if (!algorithm) return false;
  const h = (text: string): string => hash(algorithm, text);
  const ha1 = h(`${username}:${realm}:${password}`);
  const ha2 = h(`${method}:${uri}`);
  let expected: string;
  if (qop === 'auth') {
    if (!nc || !cnonce) return false;
    expected = h(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`);
  } else if (qop === undefined) {
    expected = h(`${ha1}:${nonce}:${ha2}`);
  } else {
    return false;
  }
  const a = Buffer.from(expected);
  const b = Buffer.from(response.toLowerCase());
  return a.length === b.length && timingSafeEqual(a, b);
}
