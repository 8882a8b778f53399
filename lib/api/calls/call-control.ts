import { checkStart, copyInput, sameInput } from '../../core/call-input.js';
import { isDefiniteRejection, toVoiceError, VoiceBrowserError } from '../../core/errors.js';
import { sendDigit } from './in-call-controls.js';
import { admit, once, refusal, type Calls } from './call-request.js';
import type { Runtime } from '../../runtime/runtime-types.js';
import { canRetryCall, canSendDtmf } from '../../core/status-rules.js';
import { isTerminal } from '../../core/machines/call-machine.js';
import type { BrowserCall, CallInput, VoiceBrowserStatus } from '../../core/types.js';

/**
 * Why sendDtmf() is refused now ({@link canSendDtmf} false), in words of what the status shows, so the refusal
 * matches the page's card; null when it goes ahead.
 */
function whyNoDigits(status: VoiceBrowserStatus): string | null {
  const { call, attempt } = status;
  if (canSendDtmf(status)) return null;
  if (attempt?.monitor) return 'sendDtmf() is not taken on a monitor() leg: it only listens';
  if (!call || isTerminal(call)) return 'sendDtmf() needs a call in progress; there is none';
  return 'sendDtmf() needs the call answered in this page; it has not answered its INVITE';
}

/**
 * A page's own calls: startCall(), its recordings and sendDtmf(); the desk's claims share their requests.
 * startCall(): the input checked, one request per intent (a double click joins it; a retry after a lost answer
 * repeats it with its key), and the answer sent to the runtime's loop as a call event; the call machine decides
 * what follows. A definite refusal of the session is a connection event.
 *
 * @remarks
 * Part of the SIP chunk (its entry loads it): a call needs the SIP link, so it arrives with SIP.js
 * at connect(), and a page that only recovers or cleans up never downloads it.
 */

export type CallControl = ReturnType<typeof createCallControl>;

/** Refused with a coded error, or the attempt's call (a double click joins the request in flight). */
function startCall(calls: Calls<Runtime>, input: CallInput, callOptions: { idempotencyKey: string }): Promise<BrowserCall> {
  const { rt } = calls;
  const key = callOptions?.idempotencyKey;
  const invalid = checkStart(input, key);
  if (invalid) return rt.refuse(invalid);
  // A double click with the same key joins the request in flight: one intent, one call.
  if (calls.starting?.key === key) return calls.starting.promise;
  const status = rt.status();
  const { attempt, call } = status;
  if (attempt?.idempotencyKey === key && attempt.phase === 'admitted' && call) return Promise.resolve(call);
  const retry = attempt?.idempotencyKey === key && canRetryCall(status);
  if (retry && !sameInput(attempt.input, input)) {
    // The service would answer 409 idempotency_conflict, which proves nothing about the first attempt.
    return rt.refuse(new VoiceBrowserError('invalid_argument', 'a retry must repeat the attempt it retries: same key, same from, to and options'));
  }
  const sessionId = refusal(rt, retry);
  if (typeof sessionId !== 'string') return rt.refuse(sessionId);
  const own = copyInput(input);
  rt.startCall({ sessionId, startedAt: retry ? rt.origin?.startedAt : rt.clock.now() }, { type: 'attempt_started', idempotencyKey: key, input: own });
  // spec 4.7, 7: a lost answer keeps the attempt and its key; the caller retries with the same key.
  const unknown = new VoiceBrowserError('call_outcome_unknown', 'the call may have been placed; retry startCall() with the same idempotencyKey');
  return once(calls, key, () => admit(rt, rt.backend.createCall({ ...own, sessionId }, { idempotencyKey: key, signal: rt.signal() }).then((r) => r.call), unknown));
}

/**
 * startRecording() and stopRecording() of the current call, one of this page's own (a monitor leg is not):
 * `status().recording` shows the service's answer. The recording is stopped by the id the start's answer gave.
 */
async function record(calls: Calls<Runtime>, start: boolean): Promise<void> {
  const { rt } = calls;
  const { backend } = rt;
  const method = start ? 'startRecording' : 'stopRecording';
  const { call, recording, attempt } = rt.status();
  if (!call || isTerminal(call) || attempt?.monitor) return rt.refuse(new VoiceBrowserError('no_active_call', `${method}() needs a call of this page in progress`));
  const stopped = !start && !(recording && calls.recordingId);
  if (!backend[method] || stopped) return rt.refuse(new VoiceBrowserError('invalid_argument', `${method}() needs a backend with it${stopped ? ', and a recording started here' : ''}`));
  try {
    const options = { signal: rt.signal() };
    const { recording: answer } = start ? await backend.startRecording!(call.id, options) : await backend.stopRecording!(call.id, calls.recordingId!, options);
    if (start) calls.recordingId = answer.id;
    rt.dispatch({ type: 'recording_changed', callId: call.id, recording: answer.state === 'recording' });
  } catch (cause) {
    // A refusal is the service's word; anything else (no answer, a 5xx) leaves the outcome unknown.
    const error = toVoiceError(cause, 'recording_outcome_unknown', 'the recording request failed');
    return rt.refuse(isDefiniteRejection(error) ? error : new VoiceBrowserError('recording_outcome_unknown', 'the recording request got no answer: status().recording shows what the service last said', { cause }));
  }
}

/** startCall(), recordings and sendDtmf() over one runtime's calls (the desk's claims share them). */
export function createCallControl(calls: Calls<Runtime>) {
  const { rt } = calls;
  return {
    startCall: (input: CallInput, callOptions: { idempotencyKey: string }) => startCall(calls, input, callOptions),
    startRecording: () => record(calls, true),
    stopRecording: () => record(calls, false),
    sendDtmf: (digit: string) => sendDigit(rt.link, whyNoDigits(rt.status()), digit).catch((error: unknown) => rt.refuse(toVoiceError(error, 'dtmf_outcome_unknown', 'sendDtmf() failed'))),
  };
}
