import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import type { RTCPeerConnectionConfig } from 'werift';
import type { MediaAddressMode } from './media-address-mode.js';

/**
 * Which addresses the simulator's media (werift) gathers on, offers, and talks to.
 *
 * @remarks
 * The simulator's REST and SIP listen on 127.0.0.1 only, so the browser that answers its INVITE runs on this
 * machine. Its media may therefore be offered on this machine's own interface addresses, which a browser with
 * default settings pairs with (browsers never pair a loopback candidate unless told to), and it never needs to
 * pair with, answer a connectivity check from, or send to any address that is not this machine's: every remote
 * candidate, check and pair is held to that, whatever the mode.
 *
 * A browser with default settings names its own host candidates with mDNS `.local` names (RFC 8839 section
 * 5.1; draft-ietf-mmusic-mdns-ice-candidates). Those are dropped from its SDP, since werift would resolve them
 * by multicast DNS; its checks then arrive from its real address and become peer-reflexive candidates (RFC
 * 8445 section 7.3.1.3), which the check filter admits when that address is this machine's.
 */

/** The loopback address every mode offers. */
export const LOOPBACK = '127.0.0.1';

/** What one peer connection may use: the addresses it offers, and those a remote end may have. */
export interface MediaAddresses {
  mode: MediaAddressMode;
  /** The host candidates' addresses, in the order offered; 127.0.0.1 first. */
  offered: readonly string[];
  /** The only remote addresses it pairs with, answers checks from, and so sends to: this machine's own. */
  peers: ReadonlySet<string>;
}

/** `os.networkInterfaces()`'s shape, so a test can give its own. */
export type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

/** 169.254.0.0/16 (RFC 3927): an address a browser does not gather on and werift skips as well. */
const LINK_LOCAL_V4 = /^169\.254\./;

/**
 * The addresses of `mode` on a machine with `interfaces` (default: this one's, read now).
 *
 * @example
 * ```ts
 * selectMediaAddresses('host').offered; // ['192.168.1.20']
 * ```
 */
export function selectMediaAddresses(mode: MediaAddressMode, interfaces: Interfaces = networkInterfaces()): MediaAddresses {
  if (mode === 'loopback') return { mode, offered: [LOOPBACK], peers: new Set([LOOPBACK]) };
  const all = Object.values(interfaces).flatMap((list) => list ?? []);
  const own = all.filter((info) => info.family === 'IPv4' && !info.internal && !LINK_LOCAL_V4.test(info.address)).map((info) => info.address);
  // No loopback candidate beside them: a browser with default settings gathers none, but Chromium pairs its own
  // host address with a remote 127.0.0.1, which only Linux routes. Loopback stands in only when nothing else is up.
  return { mode, offered: own.length > 0 ? [...new Set(own)] : [LOOPBACK], peers: new Set([LOOPBACK, ...all.map((info) => info.address)]) };
}

/**
 * The ICE part of a werift peer configuration for `addresses` (werift source: lib/ice/src/ice.js); `onCheck` is
 * told of every connectivity check it admits, before werift answers it.
 */
export function iceAddressConfig(addresses: MediaAddresses, onCheck?: () => void): Partial<RTCPeerConnectionConfig> {
  const loopbackOnly = addresses.offered.every((address) => address === LOOPBACK);
  return {
    // werift's own list (getHostAddresses) skips interfaces by name and, filtered by iceInterfaceAddresses, falls
    // back to every address when none matches: off, and the chosen addresses given explicitly instead.
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: [...addresses.offered],
    // werift binds every candidate's socket to the one address per family it is given (UdpTransport.init). When
    // only loopback is offered, that is 127.0.0.1, so the kernel cannot route off the machine at all; a socket so
    // bound cannot carry an interface address's candidate, so otherwise it binds the wildcard, and the two
    // filters below keep everything it sends on this machine.
    ...(loopbackOnly ? { iceInterfaceAddresses: { udp4: LOOPBACK } } : {}),
    iceUseTcp: false,
    // Never form a check pair towards a remote candidate that is not this machine's.
    iceFilterCandidatePair: (pair) => addresses.peers.has(pair.remoteCandidate.host),
    // A check from an address no pair knows becomes a peer-reflexive pair, bypassing the pair filter
    // (ice.js checkIncoming): a check from elsewhere is not answered, and so makes no pair.
    iceFilterStunResponse: (_message, address) => {
      const admitted = addresses.peers.has(address[0]);
      if (admitted) onCheck?.();
      return admitted;
    },
  };
}

/**
 * `sdp` with only the ICE candidates werift may use: UDP, on an address of `addresses.peers`. A browser's mDNS
 * `.local` names, its TCP candidates and any other machine's address are dropped; werift would resolve a
 * `.local` name with multicast DNS (ice.js addRemoteCandidate), so such a line must never reach it.
 */
export function usableCandidatesSdp(sdp: string, addresses: MediaAddresses): string {
  const lines = sdp.split(/\r?\n/);
  const kept = lines.filter((line) => {
    if (!line.startsWith('a=candidate:')) return true;
    // RFC 8839 section 5.1: foundation component transport priority address port typ ...
    const [, , transport, , address] = line.slice('a=candidate:'.length).split(' ');
    return transport?.toLowerCase() === 'udp' && address !== undefined && addresses.peers.has(address);
  });
  return kept.join('\r\n');
}
