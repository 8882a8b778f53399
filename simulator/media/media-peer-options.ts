import type { CodecProfile } from './audio-codec.js';
import type { MediaAddressMode } from './media-address-mode.js';

/**
 * How a media peer (`createMediaPeer`) is made: its tone, its clock, whether it is a monitor leg's, and where it gathers.
 */

/** Options for `createMediaPeer`. */
export interface MediaPeerOptions {
  /** Play a 440 Hz tone (PCMU, amplitude ~8000/32768) this long after connect, then echo; default 1000. */
  toneMs?: number;
  /** Epoch-ms clock for `lastPacketFromBrowserAt` and for sizing RTP timestamp gaps; default `Date.now`. */
  now?: () => number;
  /**
   * A monitor leg's peer (spec 2.6): offers `sendonly`, plays no tone, echoes nothing, and sends only what
   * `MediaPeer.send` is given; default false.
   */
  monitor?: boolean;
  /**
   * Where it gathers and which remote addresses it accepts (`selectMediaAddresses`): `loopback` (the default),
   * 127.0.0.1 alone; `host`, this machine's interface addresses as well, which a browser with default settings pairs with.
   */
  addresses?: MediaAddressMode;
  /** Which codecs it offers: `opus` (the default), Opus first and PCMU second, as hosted services do; `pcmu-only`, PCMU alone. */
  codecs?: CodecProfile;
}
