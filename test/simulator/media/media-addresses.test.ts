import { describe, expect, it } from 'vitest';
import { Candidate, CandidatePair, classes, Message, methods, StunProtocol } from 'werift';
import { iceAddressConfig, selectMediaAddresses, usableCandidatesSdp } from '../../../simulator/media/media-addresses.js';
import { fakeInterfaces } from '../support/fake-interfaces.js';

/**
 * Where the simulator's media gathers and whom it may talk to: 127.0.0.1 alone, or this machine's own addresses
 * as well, and never an address of another machine.
 */

/** A laptop on a LAN with a container bridge, a link-local address and IPv6. */
const LAPTOP = fakeInterfaces({
  lo: ['127.0.0.1', '::1'],
  eth0: ['192.0.2.10', '2001:db8::10', 'fe80::10'],
  docker0: ['172.17.0.1'],
  usb0: ['169.254.3.4'],
});

/** A check pair towards `host` as werift forms it. */
const pairTo = (host: string) => new CandidatePair(new StunProtocol(), new Candidate('1', 1, 'udp', 2_130_706_431, host, 50_000, 'host'), true);
const bindingRequest = () => new Message(methods.BINDING, classes.REQUEST);

describe('selectMediaAddresses', () => {
  it('offers and accepts 127.0.0.1 alone in loopback mode, whatever the machine has', () => {
    const loopback = selectMediaAddresses('loopback', LAPTOP);
    expect(loopback.offered).toEqual(['127.0.0.1']);
    expect([...loopback.peers]).toEqual(['127.0.0.1']);
  });

  it('offers the non-internal, non-link-local IPv4 addresses in host mode, and no loopback beside them', () => {
    expect(selectMediaAddresses('host', LAPTOP).offered).toEqual(['192.0.2.10', '172.17.0.1']);
  });

  it('accepts as peers in host mode every address of this machine, IPv6 and internal ones included, and no other', () => {
    const { peers } = selectMediaAddresses('host', LAPTOP);
    for (const own of ['127.0.0.1', '::1', '192.0.2.10', '2001:db8::10', 'fe80::10', '172.17.0.1', '169.254.3.4']) expect(peers.has(own)).toBe(true);
    expect(peers.has('192.0.2.11')).toBe(false);
    expect(peers.size).toBe(7);
  });

  it('offers 127.0.0.1 alone in host mode on a machine with no network address up', () => {
    expect(selectMediaAddresses('host', fakeInterfaces({ lo: ['127.0.0.1', '::1'] })).offered).toEqual(['127.0.0.1']);
  });
});

describe('iceAddressConfig', () => {
  it('binds, gathers and pairs on 127.0.0.1 alone in loopback mode', () => {
    const config = iceAddressConfig(selectMediaAddresses('loopback', LAPTOP));
    expect(config).toMatchObject({ iceUseIpv4: false, iceUseIpv6: false, iceUseTcp: false, iceAdditionalHostAddresses: ['127.0.0.1'], iceInterfaceAddresses: { udp4: '127.0.0.1' } });
    expect(config.iceFilterCandidatePair?.(pairTo('127.0.0.1'))).toBe(true);
    expect(config.iceFilterCandidatePair?.(pairTo('192.0.2.10'))).toBe(false);
    expect(config.iceFilterStunResponse?.(bindingRequest(), ['192.0.2.10', 50_001], new StunProtocol())).toBe(false);
  });

  it('gathers the chosen addresses alone in host mode, on sockets bound to the wildcard', () => {
    const config = iceAddressConfig(selectMediaAddresses('host', LAPTOP));
    expect(config).toMatchObject({ iceUseIpv4: false, iceUseIpv6: false, iceUseTcp: false, iceAdditionalHostAddresses: ['192.0.2.10', '172.17.0.1'] });
    expect(config.iceInterfaceAddresses).toBeUndefined();
  });

  it('pairs with, and answers checks from, this machine only in host mode', () => {
    const config = iceAddressConfig(selectMediaAddresses('host', LAPTOP));
    for (const own of ['127.0.0.1', '192.0.2.10', '172.17.0.1']) {
      expect(config.iceFilterCandidatePair?.(pairTo(own))).toBe(true);
      // A browser hiding its candidates behind mDNS names: its checks arrive from its real address (peer-reflexive).
      expect(config.iceFilterStunResponse?.(bindingRequest(), [own, 50_001], new StunProtocol())).toBe(true);
    }
    for (const elsewhere of ['192.0.2.11', '198.51.100.7', '10.0.0.1']) {
      expect(config.iceFilterCandidatePair?.(pairTo(elsewhere))).toBe(false);
      expect(config.iceFilterStunResponse?.(bindingRequest(), [elsewhere, 50_001], new StunProtocol())).toBe(false);
    }
  });
});

describe('usableCandidatesSdp', () => {
  const answer = [
    'v=0',
    'a=candidate:1 1 udp 2122260223 192.0.2.10 50000 typ host',
    'a=candidate:2 1 udp 2122260223 0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e.local 50001 typ host',
    'a=candidate:3 1 tcp 1518280447 192.0.2.10 9 typ host tcptype active',
    'a=candidate:4 1 udp 2122194687 127.0.0.1 50002 typ host',
    'a=candidate:5 1 udp 1686052607 198.51.100.7 50003 typ srflx raddr 192.0.2.10 rport 50000',
    'a=ice-ufrag:abcd',
    '',
  ].join('\r\n');

  it('keeps in host mode the UDP candidates on this machine: no mDNS name, no TCP, no other machine', () => {
    expect(usableCandidatesSdp(answer, selectMediaAddresses('host', LAPTOP))).toBe(
      ['v=0', 'a=candidate:1 1 udp 2122260223 192.0.2.10 50000 typ host', 'a=candidate:4 1 udp 2122194687 127.0.0.1 50002 typ host', 'a=ice-ufrag:abcd', ''].join('\r\n'),
    );
  });

  it('keeps in loopback mode the UDP candidate on 127.0.0.1 alone', () => {
    expect(usableCandidatesSdp(answer, selectMediaAddresses('loopback', LAPTOP))).toBe(['v=0', 'a=candidate:4 1 udp 2122194687 127.0.0.1 50002 typ host', 'a=ice-ufrag:abcd', ''].join('\r\n'));
  });
});
