/**
 * The pieces of a recording without a call: the mix of a call's two parties (mixer.ts), the WAV file it is kept
 * as, and the byte range a download asks for (wav.ts, RFC 9110 section 14.1.2).
 */
import { describe, expect, it } from 'vitest';
import { encodeMulaw } from '../../../simulator/media/g711.js';
import { CallMixer, FRAME_SAMPLES, type MixListener } from '../../../simulator/media/mixer.js';
import { byteRange, wavFile } from '../../../simulator/media/wav.js';
import { amplitudeAt, readWav } from '../support/audio.js';

const sine = (hz: number, amplitude: number, first = 0) => Array.from({ length: FRAME_SAMPLES }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * (first + i)) / 8000));

/** A listener that keeps what it is given. */
function keeper(): MixListener & { frames: Int16Array[]; ended: number } {
  const kept = { frames: [] as Int16Array[], ended: 0 };
  return Object.assign(kept, { frame: (samples: Int16Array) => void kept.frames.push(samples), end: () => void kept.ended++ });
}

describe('the mix of a call', () => {
  it('sums one frame of each party per tick, by the clock, with silence for a party that sent nothing', () => {
    let now = 1_000;
    const mixer = new CallMixer(() => now);
    const listener = keeper();
    expect(mixer.attach(listener)).toBe(true);
    mixer.feed('browser', encodeMulaw(sine(400, 6000)));
    mixer.feed('far', encodeMulaw(sine(1000, 6000)));
    mixer.feed('browser', encodeMulaw(sine(400, 6000, FRAME_SAMPLES)));
    now += 100;
    mixer.detach(listener);
    // Five ticks fell due in 100 ms: two frames of the page, one of the far party, silence after.
    expect(listener.frames).toHaveLength(5);
    const [first, second, third] = listener.frames as [Int16Array, Int16Array, Int16Array];
    expect(amplitudeAt(first, 400)).toBeGreaterThan(5000);
    expect(amplitudeAt(first, 1000)).toBeGreaterThan(5000);
    expect(amplitudeAt(second, 400)).toBeGreaterThan(5000);
    expect(amplitudeAt(second, 1000)).toBeLessThan(200);
    expect(third.every((sample) => sample === 0)).toBe(true);
    expect(listener.ended).toBe(0);
  });

  it('ends every listener when the call audio closes, and takes none after', () => {
    let now = 0;
    const mixer = new CallMixer(() => now);
    const listener = keeper();
    mixer.attach(listener);
    now += 40;
    mixer.close();
    expect({ frames: listener.frames.length, ended: listener.ended }).toEqual({ frames: 2, ended: 1 });
    expect(mixer.attach(keeper())).toBe(false);
  });

  it('drops what a party sends while nobody listens', () => {
    let now = 0;
    const mixer = new CallMixer(() => now);
    mixer.feed('browser', encodeMulaw(sine(400, 6000)));
    const listener = keeper();
    mixer.attach(listener);
    now += 20;
    mixer.detach(listener);
    expect(listener.frames[0]?.every((sample) => sample === 0)).toBe(true);
  });
});

describe('the WAV file', () => {
  it('is a 44-byte PCM header for 16-bit mono at the rate given, then the samples in order', () => {
    const frames = [Int16Array.from([1, -2, 3]), Int16Array.from([32767, -32768])];
    const wav = readWav(wavFile(frames, 8000));
    expect(wav).toMatchObject({ riffSize: 36 + 10, format: 1, channels: 1, sampleRate: 8000, byteRate: 16000, bitsPerSample: 16, dataBytes: 10 });
    expect([...wav.samples]).toEqual([1, -2, 3, 32767, -32768]);
  });
});

describe('the byte range of a download', () => {
  it.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100, end: 999 }],
    ['bytes=-10', { start: 990, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=900-5000', { start: 900, end: 999 }],
    ['bytes=999-999', { start: 999, end: 999 }],
    ['bytes=1000-', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    // Ignored, the whole answered: absent, another unit, invalid, several ranges.
    [undefined, undefined],
    ['items=0-1', undefined],
    ['bytes=5-3', undefined],
    ['bytes=0-1,5-6', undefined],
    ['bytes=-', undefined],
  ] as const)('%s over 1000 bytes', (header, expected) => {
    expect(byteRange(header, 1000)).toEqual(expected);
  });
});
