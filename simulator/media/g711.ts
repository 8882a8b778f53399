/**
 * G.711 mu-law (PCMU) helpers for the voice-service simulator.
 *
 * Pure functions, no I/O. The algorithm is the classic ITU-T G.711 mu-law
 * companding (the same segment/mantissa scheme used by the Sun/CCITT reference
 * code): 14-bit magnitude + bias, 3-bit segment, 4-bit mantissa, bits inverted.
 */

/** Bias added before segment search (G.711 mu-law, 0x84 = 33 << 2). */
const BIAS = 0x84;
/** Largest magnitude that still fits after the bias is added. */
const CLIP = 32635;

/** The mu-law byte for digital silence (decodes to 0); what a muted Chromium sends. */
export const MULAW_SILENCE = 0xff;

/**
 * Encode one signed 16-bit linear PCM sample to a G.711 mu-law byte.
 * @param sample - linear sample; values outside the int16 range are clipped.
 */
export function linearToMulaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  // Segment (exponent) = position of the highest set bit above bit 7.
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  // G.711 transmits the one's complement so that silence is 0xFF (few zero bits on the line).
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/**
 * Decode one G.711 mu-law byte to a signed 16-bit linear PCM sample.
 * @param byte - mu-law code word (only the low 8 bits are used).
 */
export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

/** Encode a buffer of linear samples to a PCMU payload (one byte per sample). */
export function encodeMulaw(samples: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = linearToMulaw(samples[i] ?? 0);
  return out;
}

/**
 * Root-mean-square level of a PCMU payload in linear int16 units (0..32767).
 * @param payload - mu-law bytes; an empty payload has RMS 0.
 */
export function mulawRms(payload: Uint8Array): number {
  if (payload.length === 0) return 0;
  let sum = 0;
  for (const byte of payload) {
    const v = mulawToLinear(byte);
    sum += v * v;
  }
  return Math.sqrt(sum / payload.length);
}
