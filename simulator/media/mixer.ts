import { mulawToLinear } from './g711.js';
import type { AudioParty } from './media.js';

/**
 * Both parties of one call mixed into one stream, for what listens to the whole call: a recording (`RecordingDesk`)
 * and a supervisor's monitor leg (`MonitorLeg`). The page's audio and the far party's (the simulated recipient
 * or queued caller: its tone, then its echo) come in as PCMU frames (the media peer's tap); each waits in a short
 * buffer of its own, and on every 20 ms tick one frame of each is summed into a frame of 16-bit linear PCM at
 * 8 kHz, silence standing in for a party that sent nothing.
 *
 * @remarks
 * The ticks follow the wall clock, not the count of timer callbacks: a late timer emits every frame that fell
 * due meanwhile, so a listener attached for a while holds that long of audio, to the frame. The clock runs only
 * while someone listens.
 */

/** One 20 ms frame at 8 kHz (RFC 3551 section 4.5 default packetization). */
export const FRAME_SAMPLES = 160;
export const FRAME_MS = 20;
/** How much of one party's audio may wait for the next tick before its oldest samples are dropped (jitter). */
const MAX_BUFFERED_SAMPLES = FRAME_SAMPLES * 5;

/** What listens to a call's mix. */
export interface MixListener {
  /** One mixed frame of {@link FRAME_SAMPLES} samples, in order, one per tick since the listener was attached. */
  frame(samples: Int16Array): void;
  /** The call's audio ended (its media closed): no frame follows. */
  end(): void;
}

/** One party's audio waiting for the next tick, oldest sample first. */
class SampleQueue {
  private samples: number[] = [];

  push(payload: Uint8Array): void {
    for (const byte of payload) this.samples.push(mulawToLinear(byte));
    const excess = this.samples.length - MAX_BUFFERED_SAMPLES;
    if (excess > 0) this.samples.splice(0, excess);
  }

  /** The next frame's samples, zero where the party sent nothing. */
  take(): number[] {
    const frame = this.samples.splice(0, FRAME_SAMPLES);
    while (frame.length < FRAME_SAMPLES) frame.push(0);
    return frame;
  }

  clear(): void {
    this.samples = [];
  }
}

/** The mix of one call's two parties, and who listens to it. */
export class CallMixer {
  private readonly queues: Record<AudioParty, SampleQueue> = { browser: new SampleQueue(), far: new SampleQueue() };
  private readonly listeners = new Set<MixListener>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private startedAt = 0;
  private emitted = 0;
  private closed = false;

  constructor(private readonly now: () => number = Date.now) {}

  /** One party's PCMU frame; dropped while nobody listens. */
  feed(party: AudioParty, payload: Uint8Array): void {
    if (this.listeners.size > 0) this.queues[party].push(payload);
  }

  /** Starts sending `listener` the mix, from the next tick on; false once the call's audio is over. */
  attach(listener: MixListener): boolean {
    if (this.closed) return false;
    if (this.listeners.size === 0) {
      this.startedAt = this.now();
      this.emitted = 0;
      this.timer = setInterval(() => this.pump(), FRAME_MS);
    }
    this.listeners.add(listener);
    return true;
  }

  /** Stops sending `listener` the mix, after every frame that fell due up to now; its `end` is not called. */
  detach(listener: MixListener): void {
    if (!this.listeners.has(listener)) return;
    this.pump();
    this.listeners.delete(listener);
    if (this.listeners.size === 0) this.stopClock();
  }

  /** The call's audio is over: every listener gets the frames due up to now, then its `end`. */
  close(): void {
    if (this.closed) return;
    this.pump();
    this.closed = true;
    const listeners = [...this.listeners];
    this.listeners.clear();
    this.stopClock();
    for (const listener of listeners) listener.end();
  }

  /** Emits every frame due since the clock started and not emitted yet. */
  private pump(): void {
    if (this.timer === undefined) return; // the clock runs only while someone listens
    const due = Math.floor((this.now() - this.startedAt) / FRAME_MS);
    for (; this.emitted < due; this.emitted++) {
      const browser = this.queues.browser.take();
      const far = this.queues.far.take();
      const mixed = new Int16Array(FRAME_SAMPLES);
      for (let i = 0; i < FRAME_SAMPLES; i++) mixed[i] = Math.max(-32768, Math.min(32767, (browser[i] ?? 0) + (far[i] ?? 0)));
      for (const listener of this.listeners) listener.frame(mixed);
    }
  }

  private stopClock(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.queues.browser.clear();
    this.queues.far.clear();
  }
}
