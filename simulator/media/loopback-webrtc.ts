import { RTCRtpCodecParameters, type RTCPeerConnection, type RTCPeerConnectionConfig } from 'werift';
import type { CodecProfile } from './audio-codec.js';
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
/** Dynamic payload type we offer for Opus (RFC 7587), the one browsers use for it. */
export const OPUS_PAYLOAD_TYPE = 111;
/** Dynamic payload type we offer for telephone-event on Opus's clock (RFC 4733 section 2.1). */
export const TELEPHONE_EVENT_48K_PAYLOAD_TYPE = 110;
/**
 * Opus as hosted services offer it (RFC 7587 section 6.1): in-band FEC, which carries a call through loss,
 * and mono both ways; the frame length is the offer's `a=ptime` (`withPtime`).
 */
export const OPUS_PARAMETERS = 'useinbandfec=1;stereo=0;sprop-stereo=0';
/** The packet length the simulator offers and sends (RFC 4566 section 6: `a=ptime`). */
export const PTIME_MS = 20;

/** PCMU, and telephone-event on its clock: the formats of `pcmu-only`, and the second and third of `opus`. */
function pcmuFormats(): RTCRtpCodecParameters[] {
  return [
    new RTCRtpCodecParameters({ mimeType: 'audio/PCMU', clockRate: PCMU_CLOCK_RATE, channels: 1, payloadType: PCMU_PAYLOAD_TYPE }),
    new RTCRtpCodecParameters({
      mimeType: 'audio/telephone-event',
      clockRate: PCMU_CLOCK_RATE,
      payloadType: TELEPHONE_EVENT_PAYLOAD_TYPE,
      parameters: '0-16', // RFC 4733 section 2.5.1: DTMF events 0-9, *, #, A-D, flash
    }),
  ];
}

/** The audio formats a profile offers, in order: werift's sender.sendRtp sends every packet as the first agreed. */
function audioFormats(profile: CodecProfile): RTCRtpCodecParameters[] {
  if (profile === 'pcmu-only') return pcmuFormats();
  return [
    // RFC 7587 section 7: Opus's rtpmap always names 48000 and 2 channels; mono is said by its parameters.
    new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48_000, channels: 2, payloadType: OPUS_PAYLOAD_TYPE, parameters: OPUS_PARAMETERS }),
    ...pcmuFormats(),
    new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 48_000, payloadType: TELEPHONE_EVENT_48K_PAYLOAD_TYPE, parameters: '0-16' }),
  ];
}

/** `sdp` with `a=ptime` in its audio section, before its first rtpmap (RFC 4566 section 6: among its attributes). */
export function withPtime(sdp: string): string {
  if (/^a=ptime:/m.test(sdp)) return sdp;
  return sdp.replace(/^a=rtpmap:/m, `a=ptime:${PTIME_MS}\r\na=rtpmap:`);
}

/**
 * werift RTCPeerConnection configuration on `addresses`: the profile's codecs (default PCMU and telephone-event
 * alone), no STUN or TURN server; `onCheck` is told of every connectivity check from an address it admits.
 */
export function mediaPeerConfig(addresses: MediaAddresses, onCheck?: () => void, profile: CodecProfile = 'pcmu-only'): RTCPeerConnectionConfig {
  return {
    codecs: { audio: audioFormats(profile), video: [] },
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
