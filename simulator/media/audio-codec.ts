import OpusScript from 'opusscript';
import { encodeMulaw, mulawToLinear } from './g711.js';
import type { CodecProfile } from './codec-profile.js';

/**
 * The codecs the simulator speaks on the wire, each turned to and from the one form its ears and voice work
 * in: 20 ms frames of 8 kHz mu-law (G.711), what the tone, the echo, the mixer, the recordings and the level
 * and DTMF detectors all take. PCMU is that form already; Opus (RFC 6716, RTP by RFC 7587) is encoded and
 * decoded by libopus in WebAssembly (opusscript), at 8 kHz on our side, 48 kHz on the wire's clock.
 */

export { CODEC_PROFILES, type CodecProfile } from './codec-profile.js';

/** The codec a call's audio runs on, by its name in the SDP. */
export type CodecName = 'opus' | 'pcmu';

/** One call's codec, both ways: frames of 8 kHz mu-law in and out. */
export interface AudioCodec {
  readonly name: CodecName;
  /** The RTP clock (RFC 3551 section 4.5.14; RFC 7587 section 4.1: Opus is always 48000). */
  readonly clockRate: number;
  /** The payload of one mu-law frame (20 ms), as it goes on the wire. */
  encode(frame: Buffer): Buffer;
  /** A payload from the wire as mu-law frames (one per 20 ms it holds), or none when it cannot be read. */
  decode(payload: Buffer): Buffer;
  /** Frees what the codec holds; it is not used again. */
  close(): void;
}

/** Samples in one 20 ms frame at 8 kHz. */
const FRAME_SAMPLES = 160;
/** Opus's encoder rate for the voice it carries here: wideband speech quality (RFC 7587 section 3.1.1). */
const OPUS_BITRATE = 32_000;
/** libopus encoder controls (opus_defines.h). */
const OPUS_SET_INBAND_FEC = 4012;
const OPUS_SET_PACKET_LOSS_PERC = 4014;
/** The loss the encoder spends its in-band FEC against: the worst the tests impair a path with. */
const FEC_LOSS_PERCENT = 10;

/** PCMU: the frames are the payload. */
export const pcmuCodec: AudioCodec = {
  name: 'pcmu',
  clockRate: 8000,
  encode: (frame) => frame,
  decode: (payload) => payload,
  close: () => undefined,
};

/** Opus in mono at 8 kHz on our side, with in-band FEC on (RFC 7587 section 3.3), as the SDP offered it. */
export function createOpusCodec(): AudioCodec {
  const encoder = new OpusScript(8000, 1, OpusScript.Application.VOIP);
  encoder.setBitrate(OPUS_BITRATE);
  encoder.encoderCTL(OPUS_SET_INBAND_FEC, 1);
  encoder.encoderCTL(OPUS_SET_PACKET_LOSS_PERC, FEC_LOSS_PERCENT);
  const decoder = new OpusScript(8000, 1, OpusScript.Application.VOIP);
  let closed = false;
  return {
    name: 'opus',
    clockRate: 48_000,
    encode(frame) {
      const pcm = Buffer.alloc(frame.length * 2);
      for (let i = 0; i < frame.length; i++) pcm.writeInt16LE(mulawToLinear(frame[i]!), i * 2);
      return encoder.encode(pcm, frame.length);
    },
    decode(payload) {
      let pcm: Buffer;
      try {
        pcm = decoder.decode(payload);
      } catch {
        return Buffer.alloc(0); // a packet libopus cannot read is heard as nothing, as a lost one
      }
      // Whole frames only: libopus gives back what the packet held, a multiple of its 2.5 ms frames.
      const count = Math.floor(pcm.length / 2 / FRAME_SAMPLES) * FRAME_SAMPLES;
      return encodeMulaw(Array.from({ length: count }, (_, i) => pcm.readInt16LE(i * 2)));
    },
    close() {
      if (closed) return;
      closed = true;
      encoder.delete();
      decoder.delete();
    },
  };
}
