import { describe, expect, it } from 'vitest';
import { expiresMs, offerOf, requiresReliable, unsupportedExtensions } from '../../../../../lib/platform/web/sip/sip-invite-body.js';
import { holdOf, keepHold } from '../../../../../lib/platform/web/sip/sip-offer-answer.js';

/** What an INVITE asks before anyone answers it, and the hold its offers set, read from the text alone. */

const invite = (headers: Record<string, string>, body = '') => ({ getHeader: (name: string) => headers[name], body });
const SDP = 'v=0\r\no=edge 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\na=sendrecv\r\n';

describe("an INVITE's headers and body", () => {
  it('names the required extensions the page lacks, case and spaces aside; 100rel and outbound are supported', () => {
    expect(unsupportedExtensions(invite({ Require: ' 100REL ,precondition, outbound' }))).toEqual(['precondition']);
    expect(unsupportedExtensions(invite({}))).toEqual([]);
    expect(requiresReliable(invite({ Require: 'timer, 100rel' }))).toBe(true);
    expect(requiresReliable(invite({ Supported: '100rel' }))).toBe(false);
  });

  it('finds the offer: a plain SDP, none, the SDP part of a multipart body (quoted boundary, LF-only lines), or the status to refuse with', () => {
    expect(offerOf(invite({ 'Content-Type': 'application/sdp' }, SDP))).toEqual({ sdp: SDP });
    expect(offerOf(invite({}, ''))).toEqual({ sdp: undefined });
    const multipart = `--b\nContent-Type: application/ISUP; version=nxv3\n\nxx\n--b\nContent-Type: application/SDP\n\n${SDP}\n--b--\n`;
    expect(offerOf(invite({ 'Content-Type': 'multipart/mixed; boundary="b"' }, multipart))).toEqual({ sdp: SDP });
    expect(offerOf(invite({ 'Content-Type': 'multipart/mixed;boundary=b' }, '--b\nContent-Type: application/ISUP\n\nxx\n--b--\n'))).toEqual({ refuse: 488 });
    expect(offerOf(invite({ 'Content-Type': 'multipart/mixed' }, 'no boundary'))).toEqual({ refuse: 488 });
    expect(offerOf(invite({ 'Content-Type': 'application/json' }, '{}'))).toEqual({ refuse: 415 });
  });

  it('reads Expires in seconds, and nothing from a value that is not one', () => {
    expect(expiresMs(invite({ Expires: '30' }))).toBe(30_000);
    expect(expiresMs(invite({ Expires: 'soon' }))).toBeUndefined();
    expect(expiresMs(invite({}))).toBeUndefined();
  });
});

describe("the far end's hold (RFC 3264 section 8.4)", () => {
  it('is read from sendonly, inactive or c=0.0.0.0, and not from sendrecv or recvonly', () => {
    expect(holdOf(SDP.replace('sendrecv', 'sendonly'))).toBe('sendonly');
    expect(holdOf(SDP.replace('sendrecv', 'inactive'))).toBe('inactive');
    expect(holdOf(SDP.replace('192.0.2.10\r\nt=', '0.0.0.0\r\nt='))).toBe('inactive');
    expect(holdOf(SDP)).toBeUndefined();
    expect(holdOf(SDP.replace('sendrecv', 'recvonly'))).toBeUndefined();
  });

  it('keeps our descriptions from sending while held: recvonly under sendonly, inactive under inactive; unchanged when not held', () => {
    expect(keepHold(SDP, 'sendonly')).toContain('a=recvonly\r\n');
    expect(keepHold(SDP.replace('sendrecv', 'sendonly'), 'sendonly')).toContain('a=inactive\r\n');
    expect(keepHold(SDP, 'inactive')).toContain('a=inactive\r\n');
    expect(keepHold(SDP.replace('sendrecv', 'recvonly'), 'sendonly')).toContain('a=recvonly\r\n');
    expect(keepHold(SDP, undefined)).toBe(SDP);
  });
});
