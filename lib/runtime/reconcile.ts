import type { CallPorts, CallReads } from './call-reads.js';

/**
 * The reads that look for the call of a request whose answer was lost (createCall's, answerNext()'s dequeue,
 * or monitor()'s leg): reconciled by reads, never by sending the request again. A call the request made is named by the
 * first read while it runs, and the call machine takes it (`attempt_reconciled`).
 *
 * @remarks
 * Part of the SIP chunk (the parts `connect()` loads): only startCall(), answerNext() and monitor(), which
 * come with it, can lose an answer.
 */

/**
 * How many reads look for the call of a lost request. Past the proxy's upstream deadline nothing new can
 * appear, so reading on would only spend the key's quota on a loop without end.
 */
export const RECONCILE_READS = 15;

/** Reads until the lost request's call is named, at most {@link RECONCILE_READS} times. */
export function reconcileReads(reads: CallReads, { dispatch, call }: CallPorts): void {
  const unknownOutcome = () => call().attempt?.phase === 'outcome_unknown';
  const { queueId, monitor } = call().attempt ?? {};
  let count = 0;
  const exhausted = () => {
    if (++count < RECONCILE_READS || !unknownOutcome()) return;
    dispatch({
      type: 'reconcile_exhausted',
      error: monitor
        ? { code: 'monitor_outcome_unknown', message: 'no monitor leg was made: monitor() again' }
        : queueId !== undefined
        ? { code: 'dequeue_outcome_unknown', message: 'no caller was claimed: answerNext() again' }
        : { code: 'call_outcome_unknown', message: 'no call of the lost request was found: retry startCall() with the same idempotencyKey to learn its outcome, or disconnect()' },
    });
  };
  reads.watch({
    read: reads.lostCall,
    isTerminal: () => !unknownOutcome(),
    onRead: (found) => {
      dispatch({ type: 'read_ok' });
      if (found) dispatch({ type: 'attempt_reconciled', call: found });
      else exhausted();
    },
    onError: (error) => {
      reads.failed(error);
      exhausted();
    },
  });
}
