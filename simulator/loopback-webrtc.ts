import { RTCRtpCodecParameters, type RTCPeerConnection, type RTCPeerConnectionConfig } from 'werift';

/**
 * werift on 127.0.0.1 only: traffic beyond loopback is forbidden on the dev machines, so the simulator's media
 * endpoint (and the tests' werift peers) bind, gather and send on 127.0.0.1 alone, with werift's built-in
 * Google STUN fallback cleared (werift source: lib/ice/src/ice.js, lib/webrtc/src/secureTransportManager.js).
 * Chromium only offers a 127.0.0.1 candidate when started with `--allow-loopback-in-peer-connection` (and
 * `--disable-features=WebRtcHideLocalIpsWithMdns`).
 */

/** The only address this module binds to, gathers on, or sends to. */
export const LOOPBACK = '127.0.0.1';
/** Static payload type of PCMU (RFC 3551 table 4). */
export const PCMU_PAYLOAD_TYPE = 0;
/** Dynamic payload type we offer for telephone-event (RFC 4733 section 7). */
export const TELEPHONE_EVENT_PAYLOAD_TYPE = 101;
/** PCMU's clock rate (RFC 3551 section 4.5.14); telephone-event runs on the same clock here. */
export const PCMU_CLOCK_RATE = 8000;

/**
 * werift RTCPeerConnection configuration that never touches anything but 127.0.0.1.
 * Shared with tests so both ends of a loopback call are equally constrained.
 */
export function loopbackPeerConfig(): RTCPeerConnectionConfig {
  return {
    codecs: {
      // PCMU first: werift's sender.sendRtp rewrites every payload type to the first negotiated codec.
      audio: [
        new RTCRtpCodecParameters({ mimeType: 'audio/PCMU', clockRate: PCMU_CLOCK_RATE, channels: 1, payloadType: PCMU_PAYLOAD_TYPE }),
        new RTCRtpCodecParameters({
          mimeType: 'audio/telephone-event',
          clockRate: PCMU_CLOCK_RATE,
          payloadType: TELEPHONE_EVENT_PAYLOAD_TYPE,
          parameters: '0-16', // RFC 4733 section 2.5.1: DTMF events 0-9, *, #, A-D, flash
        }),
      ],
      video: [],
    },
    // An empty list only avoids the configured server; ice.js still defaults to
    // stun.l.google.com:19302, which disableStun() clears before gathering.
    iceServers: [],
    // getHostAddresses() lists non-internal interfaces (the LAN address), so turn that
    // off entirely and add loopback explicitly; werift's iceInterfaceAddresses filter alone
    // falls back to *all* addresses when nothing matches.
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: [LOOPBACK],
    // Bind the UDP socket to 127.0.0.1 instead of 0.0.0.0, so the kernel cannot route off-host.
    iceInterfaceAddresses: { udp4: LOOPBACK },
    iceUseTcp: false,
    // Never form a check pair towards a non-loopback remote candidate.
    iceFilterCandidatePair: (pair) => pair.remoteCandidate.host === LOOPBACK,
    // Incoming checks from elsewhere would create peer-reflexive pairs, which bypass the
    // pair filter above (ice.js checkIncoming); refuse to answer them instead.
    iceFilterStunResponse: (_message, addr) => addr[0] === LOOPBACK,
  };
}

/**
 * Clear werift's fallback STUN server on every ICE transport. Must run after the
 * transports exist (after addTransceiver/createOffer, or setRemoteDescription for an
 * answerer) and before setLocalDescription, which triggers gathering.
 */
export function disableStun(pc: RTCPeerConnection): void {
  for (const transport of pc.iceTransports) transport.connection.stunServer = undefined;
}

/** werift's UDP socket of one ICE candidate, as far as a blackhole touches it. */
interface IceUdp {
  send: (data: Buffer, addr?: unknown) => Promise<void>;
  onData: (data: Buffer, addr: unknown) => void;
}

/** When each socket's blackhole ends (epoch ms); a socket is gated once, and the gate opens by itself. */
const gates = new WeakMap<IceUdp, { until: number }>();

/** Puts a gate on `udp`'s sends and receipts: while closed, every datagram is dropped, both ways. */
function gate(udp: IceUdp, now: () => number): { until: number } {
  const known = gates.get(udp);
  if (known) return known;
  const state = { until: 0 };
  const send = udp.send;
  const receive = udp.onData;
  udp.send = (data, addr) => (now() < state.until ? Promise.resolve() : send(data, addr));
  udp.onData = (data, addr) => {
    if (now() >= state.until) receive(data, addr);
  };
  gates.set(udp, state);
  return state;
}

/**
 * The `media-blackhole` fault: drops every datagram of `pc`'s ICE (RTP, RTCP, DTLS and the STUN checks) both
 * ways until `until`, as a network path that lost everything for a while. It works on werift's UDP sockets
 * (the ICE connection's private `protocols`, as {@link disableStun} works on its STUN server); a call whose
 * connection has no socket yet is left as it is.
 */
export function blackholeUntil(pc: RTCPeerConnection, until: number, now: () => number = Date.now): void {
  for (const transport of pc.iceTransports) {
    const protocols = (transport.connection as unknown as { protocols?: Array<{ transport?: IceUdp }> }).protocols ?? [];
    for (const { transport: udp } of protocols) {
      if (!udp) continue;
      const closed = gate(udp, now);
      closed.until = Math.max(closed.until, until);
    }
  }
}

/**
 * Drop every ICE candidate that is not UDP on 127.0.0.1 from an SDP blob. The browser
 * may list its LAN address or an mDNS `.local` name; werift would resolve the latter with
 * multicast DNS (ice.js addRemoteCandidate), so such lines must never reach it.
 */
export function loopbackOnlySdp(sdp: string): string {
  const lines = sdp.split(/\r?\n/);
  const kept = lines.filter((line) => {
    if (!line.startsWith('a=candidate:')) return true;
    // RFC 8839 section 5.1: foundation component transport priority address port typ ...
    const [, , transport, , address] = line.slice('a=candidate:'.length).split(' ');
    return transport?.toLowerCase() === 'udp' && address === LOOPBACK;
  });
  return kept.join('\r\n');
}
