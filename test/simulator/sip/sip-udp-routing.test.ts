import { describe, expect, it } from 'vitest';
import { requestDestination, responseDestination, stampVia } from '../../../simulator/sip/sip-udp-routing.js';

/** A request or response with the given start line and headers, and no body. */
const message = (start: string, ...headers: string[]): string => [start, ...headers, 'Content-Length: 0', '', ''].join('\r\n');

describe('RFC 3261 section 18.2.1 and RFC 3581 section 4: the Via a received request is stamped with', () => {
  const source = { address: '127.0.0.1', port: 40000 };

  it('fills an empty rport with the source port and adds received, even when the sent-by address matches', () => {
    const stamped = stampVia(message('INVITE sip:a@127.0.0.1 SIP/2.0', 'Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK1;rport', 'Via: SIP/2.0/WS x.invalid;branch=z9hG4bK2;rport'), source);
    expect(stamped).toContain('Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK1;rport=40000;received=127.0.0.1\r\n');
    // Only the top Via is ours to stamp.
    expect(stamped).toContain('Via: SIP/2.0/WS x.invalid;branch=z9hG4bK2;rport\r\n');
  });

  it('adds received when the sent-by host is not the source address, and leaves a matching Via alone', () => {
    expect(stampVia(message('BYE sip:a@127.0.0.1 SIP/2.0', 'v: SIP/2.0/UDP edge.invalid:5060;branch=z9hG4bK1'), source)).toContain('v: SIP/2.0/UDP edge.invalid:5060;branch=z9hG4bK1;received=127.0.0.1\r\n');
    const matching = message('BYE sip:a@127.0.0.1 SIP/2.0', 'Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK1');
    expect(stampVia(matching, source)).toBe(matching);
  });
});

describe('RFC 3261 section 18.2.2: where a response goes over UDP', () => {
  it('to received and rport when the Via has them', () => {
    expect(responseDestination(message('SIP/2.0 200 OK', 'Via: SIP/2.0/UDP edge.invalid:5060;branch=z9hG4bK1;rport=40000;received=127.0.0.1'))).toEqual({ address: '127.0.0.1', port: 40000 });
  });

  it('to the sent-by otherwise, on 5060 when it names no port', () => {
    expect(responseDestination(message('SIP/2.0 180 Ringing', 'Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK1'))).toEqual({ address: '127.0.0.1', port: 5070 });
    expect(responseDestination(message('SIP/2.0 180 Ringing', 'Via: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bK1'))).toEqual({ address: '127.0.0.1', port: 5060 });
  });

  it('nowhere but an IP address: a name is refused, as the simulator resolves none', () => {
    expect(() => responseDestination(message('SIP/2.0 200 OK', 'Via: SIP/2.0/UDP edge.invalid:5060;branch=z9hG4bK1'))).toThrow(/IP addresses only/);
  });
});

describe('RFC 3261 sections 8.1.2 and 12.2.1.1: where a request goes', () => {
  it('to the first Route of its route set (a Path the edge gave), not to its Request-URI', () => {
    const invite = message('INVITE sip:agent@page.invalid;transport=ws SIP/2.0', 'Route: <sip:127.0.0.1:5066;lr;received=sip:127.0.0.1:41234%3Btransport%3Dws>, <sip:127.0.0.1:5067;transport=ws;lr>');
    expect(requestDestination(invite)).toEqual({ address: '127.0.0.1', port: 5066 });
  });

  it('to the Request-URI without a route set', () => {
    expect(requestDestination(message('OPTIONS sip:127.0.0.1:5090 SIP/2.0'))).toEqual({ address: '127.0.0.1', port: 5090 });
  });
});
