import { encodeMulaw } from './g711.js';
import { PCMU_CLOCK_RATE } from './loopback-webrtc.js';

/**
 * The tone the simulated recipient plays when media connects, before it echoes the browser (docs/simulator.md): a
 * 440 Hz sine in PCMU, one 20 ms frame at a time, so the page hears that audio flows before it speaks.
 */

const FRAME_MS = 20; // RFC 3551 section 4.5 default packetization (ptime 20)
const SAMPLES_PER_FRAME = (PCMU_CLOCK_RATE * FRAME_MS) / 1000;
const TONE_HZ = 440;
const TONE_AMPLITUDE = 8000;

/** One 20 ms frame of the 440 Hz tone, phase-continuous via the running sample index. */
export function toneFrame(firstSample: number): Buffer {
  const samples = new Array<number>(SAMPLES_PER_FRAME);
  for (let i = 0; i < SAMPLES_PER_FRAME; i++) {
    samples[i] = TONE_AMPLITUDE * Math.sin((2 * Math.PI * TONE_HZ * (firstSample + i)) / PCMU_CLOCK_RATE);
  }
  return encodeMulaw(samples);
}

/** Plays the tone once, frame by frame on a timer, through `send`. */
export class TonePlayer {
  private timer: NodeJS.Timeout | undefined;
  private sample = 0;

  constructor(private readonly send: (frame: Buffer) => void) {}

  /** Plays `toneMs` of tone (whole frames), then calls `onEnd`; at once, playing nothing, for 0. */
  play(toneMs: number, onEnd: () => void): void {
    let framesLeft = Math.ceil(toneMs / FRAME_MS);
    if (framesLeft === 0) return onEnd();
    this.timer = setInterval(() => {
      this.send(toneFrame(this.sample));
      this.sample += SAMPLES_PER_FRAME;
      if (--framesLeft <= 0) {
        this.stop();
        onEnd();
      }
    }, FRAME_MS);
  }

  /** Stops the tone where it is; onEnd is not called. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
