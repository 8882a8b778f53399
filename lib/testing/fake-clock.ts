import { setImmediate } from 'node:timers';
import type { Clock } from '../core/clock.js';

/**
 * A {@link Clock} whose time moves only when a test says so.
 *
 * @remarks
 * `advance(ms)` runs every timer that falls due within the window in time order (ties in the order they were
 * set), including timers that those timers set, and lets pending promise callbacks run before and after each
 * one, so async code driven by the timers (a poller's read, a fake backend's answer) settles between ticks.
 * Node's own `setImmediate` is imported so the flush works under happy-dom as well.
 *
 * @example
 * ```ts
 * const clock = new FakeClock();
 * clock.setTimeout(() => fired.push(clock.now()), 1000);
 * await clock.advance(1000); // fired: [1000]
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, { at: number; run: () => void }>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(run: () => void, ms: number): number {
    const id = this.#nextId++;
    // Like the browser: a negative, NaN or missing delay means "as soon as possible".
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.#timers.set(id, { at: this.#now + delay, run });
    return id;
  }

  clearTimeout(handle: unknown): void {
    if (typeof handle === 'number') this.#timers.delete(handle);
  }

  /** How many timers are set and not yet run or cleared. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** When the earliest pending timer is due, or undefined when none is set. */
  get nextDueAt(): number | undefined {
    return this.#earliest()?.[1].at;
  }

  /** Moves time forward by `ms`, running each timer that falls due, in order, with microtasks flushed between. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + Math.max(0, ms);
    await flushMicrotasks();
    for (let next = this.#earliest(); next && next[1].at <= target; next = this.#earliest()) {
      const [id, timer] = next;
      this.#timers.delete(id);
      this.#now = timer.at;
      timer.run();
      await flushMicrotasks();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  /** Lets pending promise callbacks run without moving time. */
  flush(): Promise<void> {
    return flushMicrotasks();
  }

  #earliest(): [number, { at: number; run: () => void }] | undefined {
    let best: [number, { at: number; run: () => void }] | undefined;
    // Map iteration follows insertion (= id) order, so `<` keeps ties in the order they were set.
    for (const entry of this.#timers) if (!best || entry[1].at < best[1].at) best = entry;
    return best;
  }
}

/**
 * Resolves after every promise callback queued so far, and those they queue in turn, has run: Node drains the
 * whole microtask queue before it runs an immediate. Twice, for code that hops through one macrotask itself.
 */
export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
