import { describe, expect, it } from 'vitest';
import { LoggerFactory } from 'sip.js/lib/core/log/logger-factory.js';
import { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import { Parser } from 'sip.js/lib/core/messages/parser.js';
import { DigestCredentials, keepStrongestChallenge } from '../../../../../lib/platform/web/sip/sip-digest.js';

/** The link's digest (lib/platform/web/sip/sip-digest.ts): RFC 7616's own examples, and the choice among several challenges (RFC 8760). */

// RFC 7616 section 3.9.1: the same request answered with MD5 and with SHA-256.
const EXAMPLE = {
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  realm: 'http-auth@example.org',
  opaque: 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS',
  qop: ['auth', 'auth-int'],
};
const REQUEST = { method: 'GET', ruri: { toString: () => '/dir/index.html' } };
const mufasa = () => new DigestCredentials('Mufasa', 'Circle of Life', () => 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ');
const param = (header: string, name: string) => new RegExp(`${name}="?([^",]*)`).exec(header)?.[1];

const silent = new LoggerFactory().getLogger('sip.parser');
function challenged(...offers: string[]): IncomingResponseMessage {
  const frame = ['SIP/2.0 401 Unauthorized', 'Via: SIP/2.0/WSS page.invalid;branch=z9hG4bK1', 'From: <sip:a@edge>;tag=1', 'To: <sip:a@edge>;tag=2', 'Call-ID: c', 'CSeq: 1 REGISTER', ...offers.map((offer) => `WWW-Authenticate: ${offer}`), 'Content-Length: 0', '', ''].join('\r\n');
  const message = Parser.parseMessage(frame, silent);
  if (!(message instanceof IncomingResponseMessage)) throw new Error('not a response');
  keepStrongestChallenge(frame, message);
  return message;
}

describe('the digest', () => {
  it("computes RFC 7616's example response with SHA-256 and with MD5", () => {
    const sha = mufasa();
    expect(sha.authenticate(REQUEST, { ...EXAMPLE, algorithm: 'SHA-256' })).toBe(true);
    expect(param(sha.toString(), 'response')).toBe('753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
    expect(sha.toString()).toMatch(/^Digest algorithm=SHA-256, username="Mufasa", .*qop=auth, cnonce="f2\/wE4q74E6zIJEtWaHKaf5wv\/H5QzzpXusqGemxURZJ", nc=00000001$/);
    const md5 = mufasa();
    expect(md5.authenticate(REQUEST, { ...EXAMPLE, algorithm: 'MD5' })).toBe(true);
    expect(param(md5.toString(), 'response')).toBe('8ca523f5e9506fed4657c9700eebdbec');
    expect(param(md5.toString(), 'opaque')).toBe(EXAMPLE.opaque);
  });

  it('counts nc up on a nonce it answered before, and from 1 on a new one', () => {
    const credentials = mufasa();
    credentials.authenticate(REQUEST, EXAMPLE);
    credentials.authenticate(REQUEST, EXAMPLE);
    expect(param(credentials.toString(), 'nc')).toBe('00000002');
    credentials.authenticate(REQUEST, { ...EXAMPLE, nonce: 'another' });
    expect(param(credentials.toString(), 'nc')).toBe('00000001');
  });

  it('declines a challenge it cannot compute, so the core reports the 401 as it came', () => {
    expect(mufasa().authenticate(REQUEST, { ...EXAMPLE, algorithm: 'SHA-512-256-sess' })).toBe(false);
    expect(mufasa().authenticate(REQUEST, { ...EXAMPLE, qop: ['auth-conf'] })).toBe(false);
  });

  it('keeps the strongest of several challenges, in any order, and an unknown algorithm never', () => {
    const md5 = 'Digest realm="edge", nonce="n1", algorithm=MD5, qop="auth"';
    const sha = 'Digest realm="edge", nonce="n2", algorithm=SHA-256, qop="auth"';
    const odd = 'Digest realm="edge", nonce="n3", algorithm=SHA-512-256-sess, qop="auth"';
    expect(challenged(sha, md5).parseHeader('www-authenticate')).toMatchObject({ algorithm: 'SHA-256', nonce: 'n2' });
    expect(challenged(md5, sha).parseHeader('www-authenticate')).toMatchObject({ algorithm: 'SHA-256', nonce: 'n2' });
    expect(challenged(md5, odd).parseHeader('www-authenticate')).toMatchObject({ algorithm: 'MD5', nonce: 'n1' });
  });
});
