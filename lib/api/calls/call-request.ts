import { whyNoCalls, type ConnectionEvent, type ConnectionSlice } from '../../core/machines/connection-machine.js';
import { isDefiniteRejection, toVoiceError, VoiceBrowserError } from '../../core/errors.js';
import { canAnswerNext, canCall } from '../../core/status-rules.js';
import type { CallEvent } from '../../core/machines/call-machine.js';
import type { BrowserCall, VoiceBrowserStatus } from '../../core/types.js';

/**
 * What every attempt's request shares, a page's own call (startCall()) or a queue's caller it takes (answerNext(),
 * accept(), monitor()): one request per intent, and its answer sent to the loop as a call event, so that the call
 * machine decides what follows (spec 4.7: a lost answer leaves the outcome unknown, not failed).
 */

/** What a request needs of the loop: the status to check, and the events it sends. The runtime is one. */
export interface RequestLoop {
  readonly connectionState: ConnectionSlice;
  status(): VoiceBrowserStatus;
  dispatch(event: CallEvent | ConnectionEvent): void;
}

/** The calls' own state over one loop: the request in flight, and the recording this page started. */
export interface Calls<Loop extends RequestLoop = RequestLoop> {
  rt: Loop;
  starting?: { key: string; promise: Promise<BrowserCall> };
  recordingId?: string;
}

/** The attempt's request: its call admitted, refused (nothing made), or unknown (reads reconcile it). */
export async function admit(rt: RequestLoop, request: Promise<BrowserCall>, unknownError: VoiceBrowserError): Promise<BrowserCall> {
  try {
    const call = await request;
    rt.dispatch({ type: 'attempt_admitted', call });
    return call;
  } catch (cause) {
    const error = toVoiceError(cause, unknownError.code, 'the request got no answer');
    if (isDefiniteRejection(error)) {
      rt.dispatch({ type: 'attempt_rejected', error: error.toStatus() });
      // The service knows first when a session lapsed early (revoked, expired at its clock): its definite
      // refusal of a call for the session stops the page offering calls.
      if (error.code === 'browser_session_unavailable') rt.dispatch({ type: 'session_refused', error: error.toStatus() });
      throw error;
    }
    rt.dispatch({ type: 'attempt_unknown', error: unknownError.toStatus() });
    throw unknownError;
  }
}

/** Why no attempt may start now (by canCall() for a retry, else canAnswerNext()), else the session to start it on. */
export function refusal(rt: RequestLoop, retry = false): VoiceBrowserError | string {
  const status = rt.status();
  if ((retry ? canCall(status) : canAnswerNext(status)) && status.session) return status.session.id;
  if (status.busy && !retry) return new VoiceBrowserError('browser_agent_busy', 'a call is still active; wait until busy is false or hang up');
  return new VoiceBrowserError('browser_session_unavailable', whyNoCalls(rt.connectionState) ?? 'no session');
}

/** One request per intent: a second call with the same key joins the one in flight. */
export function once(calls: Calls, key: string, run: () => Promise<BrowserCall>): Promise<BrowserCall> {
  const promise = run().finally(() => {
    if (calls.starting?.promise === promise) calls.starting = undefined;
  });
  calls.starting = { key, promise };
  return promise;
}
