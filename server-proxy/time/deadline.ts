import { unref, type Clock } from './clock.js';

/**
 * What `work` resolves to, or `late()` once `ms` have passed without it: a shared store that stalls must not
 * hold a request (or a readiness check) for longer. The timer is cleared either way.
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number, late: () => T, clock: Clock): Promise<T> {
  let timer: unknown;
  const deadline = new Promise<T>((resolve) => {
    timer = clock.setTimeout(() => resolve(late()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clock.clearTimeout(timer);
  }
}

/**
 * A signal that aborts once `ms` have passed on `clock`, with a `TimeoutError` `DOMException` as
 * `AbortSignal.timeout` gives; `clear()` stops its timer once the work is done. The timer never keeps the
 * process alive.
 */
export function timeoutSignal(clock: Clock, ms: number, message: string): { signal: AbortSignal; clear(): void } {
  const abort = new AbortController();
  const timer = clock.setTimeout(() => abort.abort(new DOMException(message, 'TimeoutError')), ms);
  unref(timer);
  return { signal: abort.signal, clear: () => clock.clearTimeout(timer) };
}
