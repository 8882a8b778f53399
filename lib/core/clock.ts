/**
 * Time, injected: the one place the library reads the clock or sets timers, so tests drive a fake one.
 */
export interface Clock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
