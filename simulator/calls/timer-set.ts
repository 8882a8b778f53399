/**
 * The timers of one call (`CallRunner`): each runs once, and all of them are cancelled together when the
 * call starts to end, so no phase's timer fires into a call already going down.
 */

/** A set of one-shot timers cancelled as one. */
export class TimerSet {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** Runs `run` once after `ms`, unless {@link TimerSet.clear} comes first; a promise it returns is not awaited. */
  after(ms: number, run: () => unknown): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, ms);
    this.timers.add(timer);
  }

  /** Cancels every timer not yet run. */
  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
