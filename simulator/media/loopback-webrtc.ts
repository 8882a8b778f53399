import { RTCRtpCodecParameters, type RTCPeerConnection, type RTCPeerConnectionConfig } from 'werift';
import { iceAddressConfig, selectMediaAddresses, usableCandidatesSdp, type MediaAddresses } from './media-addresses.js';

/**
 * werift as the simulator's media endpoint, and as the tests' stand-in browsers: the codecs it offers, the
 * addresses it may use (`selectMediaAddresses`: 127.0.0.1 alone, or this machine's own addresses as well), and
 * werift's built-in Google STUN fallback cleared (werift source: lib/ice/src/ice.js,
 * lib/webrtc/src/secureTransportManager.js). Chromium only pairs a 127.0.0.1 candidate when started with
 * `--allow-loopback-in-peer-connection`, Firefox with `media.peerconnection.ice.loopback`.
 */

/** Static payload type of PCMU (RFC 3551 table 4). */
export const PCMU_PAYLOAD_TYPE = 0;
/** Dynamic payload type we offer for telephone-event (RFC 4733 section 7). */
export const TELEPHONE_EVENT_PAYLOAD_TYPE = 101;
/** PCMU's clock rate (RFC 3551 section 4.5.14); telephone-event runs on the same clock here. */
export const PCMU_CLOCK_RATE = 8000;

/**
 * werift RTCPeerConnection configuration on `addresses`: PCMU and telephone-event, no STUN or TURN server;
 * `onCheck` is told of every connectivity check from an address it admits.
 */
export function mediaPeerConfig(addresses: MediaAddresses, onCheck?: () => void): RTCPeerConnectionConfig {
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
    ...iceAddressConfig(addresses, onCheck),
  };
}

/**
 * werift RTCPeerConnection configuration that never touches anything but 127.0.0.1: bound, gathering, pairing
 * and answering checks there alone. Shared with tests so both ends of a loopback call are equally constrained.
 */
export function loopbackPeerConfig(): RTCPeerConnectionConfig {
  return mediaPeerConfig(selectMediaAddresses('loopback'));
}

/**
 * Clear werift's fallback STUN server on every ICE transport. Must run after the
 * transports exist (after addTransceiver/createOffer, or setRemoteDescription for an
 * answerer) and before setLocalDescription, which triggers gathering.
 */
export function disableStun(pc: RTCPeerConnection): void {
  for (const transport of pc.iceTransports) transport.connection.stunServer = undefined;
}

/** {@link usableCandidatesSdp} for loopback: every ICE candidate but UDP on 127.0.0.1 dropped from an SDP blob. */
export function loopbackOnlySdp(sdp: string): string {
  return usableCandidatesSdp(sdp, selectMediaAddresses('loopback'));
}
