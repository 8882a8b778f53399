import { VoiceBrowserError } from '../core/errors.js';

/**
 * The faults a test scripts on the fake backend (`FakeBackend`), kept per operation and used one per request
 * in order, and the errors our fetch backend reports, for a test to script or to expect.
 */

/** A request parked by `hold()`: the work is done, the answer waits for the test. */
export interface Gate {
  /** Sends the answer. */
  release(): void;
  /** Answers with this error instead. */
  fail(error: unknown): void;
}

/** An error as our fetch backend reports an HTTP answer with an error body. */
export function httpError(status: number, code: string, retryAfterMs?: number): VoiceBrowserError {
  return new VoiceBrowserError(code, `the service answered ${status} ${code}`, { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
}

/** An error as our fetch backend reports a request that got no answer. */
export function networkError(): VoiceBrowserError {
  return new VoiceBrowserError('network_error', 'got no answer', { status: 0 });
}

type Script = { kind: 'fail'; error: unknown } | { kind: 'drop'; error: unknown } | { kind: 'hold'; gate: Promise<void>; commit: boolean };

/** The scripts of each operation not used yet, and how a request runs under the next one. */
export class FaultScripts<Operation extends string> {
  readonly #scripts = new Map<Operation, Script[]>();

  /** The next request of `op` answers with `error`; nothing is done. */
  fail(op: Operation, error: unknown): void {
    this.#add(op, { kind: 'fail', error });
  }

  /** The next request of `op` does the work, then loses the answer with `error`. */
  drop(op: Operation, error: unknown): void {
    this.#add(op, { kind: 'drop', error });
  }

  /** The next request of `op` waits for the gate, after the work (`commit`) or before it. */
  hold(op: Operation, commit: boolean): Gate {
    let gate!: Gate;
    const promise = new Promise<void>((resolve, reject) => (gate = { release: resolve, fail: reject }));
    // The gate may be failed before the request arrives; the request sees the rejection then.
    promise.catch(() => undefined);
    this.#add(op, { kind: 'hold', gate: promise, commit });
    return gate;
  }

  heal(op: Operation): void {
    this.#scripts.delete(op);
  }

  /** Runs a request's `work` as the next script of `op` says; unscripted, it answers with what the work returns. */
  async run<T>(op: Operation, signal: AbortSignal, work: () => T): Promise<T> {
    const script = this.#scripts.get(op)?.shift();
    // Answers arrive asynchronously, as over a network.
    await Promise.resolve();
    if (script?.kind === 'fail') throw script.error;
    if (script?.kind === 'hold' && !script.commit) await waitFor(script.gate, signal);
    const result = work();
    if (script?.kind === 'drop') throw script.error;
    if (script?.kind === 'hold' && script.commit) await waitFor(script.gate, signal);
    return result;
  }

  #add(op: Operation, script: Script): void {
    const list = this.#scripts.get(op) ?? [];
    list.push(script);
    this.#scripts.set(op, list);
  }
}

/** Waits for a gate; an aborted request gets no answer, as with fetch. */
function waitFor(gate: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(networkError()), { once: true });
    gate.then(resolve, reject);
  });
}
