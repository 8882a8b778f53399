import { expect } from 'vitest';
import { linearToMulaw, mulawToLinear } from '../../../simulator/media/g711.js';

/**
 * Looking at audio in tests: a WAV file's header and samples, and how strong one frequency is in them (the
 * Goertzel algorithm: one bin of a discrete Fourier transform).
 */

/** The fields of a PCM WAV file's 44-byte header, and its samples. */
export interface Wav {
  riffSize: number;
  format: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  bitsPerSample: number;
  dataBytes: number;
  samples: Int16Array;
}

/** Reads a PCM WAV file with a canonical 44-byte header; fails the test when its markers are not there. */
export function readWav(file: Buffer): Wav {
  expect([file.toString('ascii', 0, 4), file.toString('ascii', 8, 12), file.toString('ascii', 12, 16), file.toString('ascii', 36, 40)]).toEqual(['RIFF', 'WAVE', 'fmt ', 'data']);
  const dataBytes = file.readUInt32LE(40);
  const samples = new Int16Array(dataBytes / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = file.readInt16LE(44 + i * 2);
  return {
    riffSize: file.readUInt32LE(4),
    format: file.readUInt16LE(20),
    channels: file.readUInt16LE(22),
    sampleRate: file.readUInt32LE(24),
    byteRate: file.readUInt32LE(28),
    bitsPerSample: file.readUInt16LE(34),
    dataBytes,
    samples,
  };
}

/** The amplitude of the `hz` component of `samples` (a sine of amplitude A at exactly `hz` measures about A). */
export function amplitudeAt(samples: ArrayLike<number>, hz: number, sampleRate = 8000): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  for (let i = 0; i < samples.length; i++) {
    const current = (samples[i] ?? 0) + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return (2 * Math.sqrt(Math.max(0, power))) / samples.length;
}

/** The strongest amplitude of `hz` over consecutive windows of `windowSamples` (100 ms at 8 kHz by default). */
export function peakAmplitudeAt(samples: Int16Array | number[], hz: number, windowSamples = 800): number {
  let peak = 0;
  for (let start = 0; start + windowSamples <= samples.length; start += windowSamples) {
    peak = Math.max(peak, amplitudeAt(samples.slice(start, start + windowSamples), hz));
  }
  return peak;
}

/** Frame `k` of a voiced test signal: 523 Hz at amplitude 6000 as 20 ms of 8 kHz mu-law, phase-continuous across frames. */
export function voicedFrame(k: number): Buffer {
  const out = Buffer.alloc(160);
  for (let i = 0; i < 160; i++) out[i] = linearToMulaw(6000 * Math.sin((2 * Math.PI * 523 * (k * 160 + i)) / 8000));
  return out;
}

/** The frequency of a tone carried in 8 kHz mu-law frames, from its zero crossings. */
export function frequencyOf(frames: Buffer[]): number {
  const pcm = frames.flatMap((frame) => [...frame].map(mulawToLinear));
  let crossings = 0;
  for (let i = 1; i < pcm.length; i++) if ((pcm[i - 1] ?? 0) < 0 !== (pcm[i] ?? 0) < 0) crossings++;
  return crossings / 2 / (pcm.length / 8000);
}
