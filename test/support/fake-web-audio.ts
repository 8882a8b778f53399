import type { MeterAnalyser, MeterAudioContext } from '../../lib/platform/web/media/microphone-meter.js';
import type { FakeClock } from '../../lib/testing/fake-clock.js';

/**
 * Web Audio as the microphone meter meets it (happy-dom has none): an AudioContext whose `currentTime` runs with a
 * fake clock while the context runs and stands still while it is suspended, as a real one's does; an analyser
 * that hears a square wave of `level` (its RMS is the level itself) on whatever track is connected.
 */

/** A context made suspended (the autoplay policy), and whether resume() may run it. */
export interface WebAudioOptions {
  suspended?: boolean;
  mayResume?: boolean;
}

/** A MediaStreamAudioSourceNode: the tracks it was made on, and whether it is still connected. */
export class FakeSourceNode {
  connected = false;
  constructor(readonly tracks: MediaStreamTrack[]) {}
  connect(): void {
    this.connected = true;
  }
  disconnect(): void {
    this.connected = false;
  }
}

class FakeAnalyser implements MeterAnalyser {
  fftSize = 2048;
  constructor(private readonly context: FakeAudioContext) {}
  getFloatTimeDomainData(samples: Float32Array<ArrayBuffer>): void {
    samples.forEach((_, i) => (samples[i] = i % 2 === 0 ? this.context.level : -this.context.level));
  }
}

export class FakeAudioContext implements MeterAudioContext {
  state: 'running' | 'suspended' | 'closed';
  /** What the microphone sends now, as an RMS level from 0 to 1. */
  level = 0.05;
  /** Whether resume() may run the context (the autoplay policy allows it). */
  mayResume: boolean;
  readonly sources: FakeSourceNode[] = [];
  analysers = 0;
  private rendered = 0;
  private runningSince: number | undefined;

  constructor(
    private readonly clock: FakeClock,
    options: WebAudioOptions = {},
  ) {
    this.state = options.suspended ? 'suspended' : 'running';
    this.mayResume = options.mayResume ?? true;
    if (!options.suspended) this.runningSince = clock.now();
  }

  get currentTime(): number {
    return (this.rendered + (this.runningSince === undefined ? 0 : this.clock.now() - this.runningSince)) / 1000;
  }

  createAnalyser(): MeterAnalyser {
    this.analysers++;
    return new FakeAnalyser(this);
  }

  createMediaStreamSource(stream: MediaStream): FakeSourceNode {
    if (this.state === 'closed') throw new DOMException('the context is closed', 'InvalidStateError');
    const node = new FakeSourceNode(stream.getAudioTracks());
    this.sources.push(node);
    return node;
  }

  resume(): Promise<void> {
    if (this.mayResume && this.state === 'suspended') {
      this.state = 'running';
      this.runningSince = this.clock.now();
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.rendered = this.currentTime * 1000;
    this.runningSince = undefined;
    this.state = 'closed';
    return Promise.resolve();
  }
}

/** The browser's AudioContext constructor as the meter calls it: every context made, in order. */
export function fakeWebAudio(clock: FakeClock, options: WebAudioOptions = {}) {
  const made: FakeAudioContext[] = [];
  return {
    made,
    open: (): FakeAudioContext => {
      const context = new FakeAudioContext(clock, options);
      made.push(context);
      return context;
    },
  };
}
