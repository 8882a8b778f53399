import { checkStart, copyInput, sameInput } from '../../core/call-input.js';
import { whyNoCalls } from '../../core/machines/connection-machine.js';
import { isDefiniteRejection, toVoiceError, VoiceBrowserError } from '../../core/errors.js';
import { sendDigit } from './in-call-controls.js';
import { asBrowserCall, queueRoutes } from '../../runtime/queue-call.js';
import type { Runtime } from '../../runtime/runtime-types.js';
import { canAnswerNext, canCall, canRetryCall, canSendDtmf } from '../../core/status-rules.js';
import type { CallRoutes } from '../../runtime/call-reads.js';
import { isTerminal } from '../../core/machines/call-machine.js';
import type { Availability, BrowserCall, CallInput, VoiceBrowserStatus } from '../../core/types.js';

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
 * startCall() and sendDtmf(). startCall(): the input checked, one request per intent (a double click joins it; a retry after a lost
 * answer repeats it with its key), and the answer sent to the runtime's loop as a call event; the call
 * machine decides what follows. A definite refusal of the session is a connection event.
 *
 * @remarks
 * Part of the SIP chunk (its entry loads it): a call needs the SIP link, so it arrives with SIP.js
 * at connect(), and a page that only recovers or cleans up never downloads it.
 */

export type CallControl = ReturnType<typeof createCallControl>;

/** The calls' own state over one runtime: the request in flight, and the recording this page started. */
interface Calls {
  rt: Runtime;
  starting?: { key: string; promise: Promise<BrowserCall> };
  recordingId?: string;
}

/** The attempt's request: its call admitted, refused (nothing made), or unknown (reads reconcile it). */
async function admit(rt: Runtime, request: Promise<BrowserCall>, unknownError: VoiceBrowserError): Promise<BrowserCall> {
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
function refusal(rt: Runtime, retry = false): VoiceBrowserError | string {
  const status = rt.status();
  if ((retry ? canCall(status) : canAnswerNext(status)) && status.session) return status.session.id;
  if (status.busy && !retry) return new VoiceBrowserError('browser_agent_busy', 'a call is still active; wait until busy is false or hang up');
  return new VoiceBrowserError('browser_session_unavailable', whyNoCalls(rt.connectionState) ?? 'no session');
}

/** One request per intent: a second call with the same key joins the one in flight. */
function once(calls: Calls, key: string, run: () => Promise<BrowserCall>): Promise<BrowserCall> {
  const promise = run().finally(() => {
    if (calls.starting?.promise === promise) calls.starting = undefined;
  });
  calls.starting = { key, promise };
  return promise;
}

/** Refused with a coded error, or the attempt's call (a double click joins the request in flight). */
function startCall(calls: Calls, input: CallInput, callOptions: { idempotencyKey: string }): Promise<BrowserCall> {
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

/** What claims a queue's caller: the request, on the queue's routes, that makes the call this agent's. */
type Claim = (routes: CallRoutes, options: { signal: AbortSignal }) => Promise<BrowserCall>;

/**
 * Takes a queue's caller as the attempt (DESIGN.md, "Support desks"): `claim` is the request that makes the
 * call this agent's, a dequeue (answerNext) or the read of an offered call (accept: its INVITE, held, becomes
 * the attempt's and is answered only once that read shows the call bridging here), or a supervisor's monitor
 * leg (monitor(): the link answers its INVITE listen-only). Never retried by itself: reads of the agent's
 * calls find the call if the claim made one.
 */
function takeCaller(calls: Calls, key: string, claim: Claim, origin: { queueId?: string; monitor?: string; accept?: true }, unknown = lostClaim()): Promise<BrowserCall> {
  const { rt } = calls;
  if (calls.starting?.key === key) return calls.starting.promise;
  const sessionId = refusal(rt);
  if (typeof sessionId !== 'string') return rt.refuse(sessionId);
  const routes = queueRoutes(rt.backend);
  rt.startCall({ sessionId, startedAt: rt.clock.now(), routes }, { type: 'attempt_started', idempotencyKey: key, input: { from: '', to: '' }, ...origin });
  return once(calls, key, () => admit(rt, claim(routes, { signal: rt.signal() }), unknown));
}

const lostClaim = () => new VoiceBrowserError('dequeue_outcome_unknown', 'the claim got no answer: the caller shows here if one was claimed');

/** Claims the next caller of `queueId` for this agent: the dequeue as the attempt's request. */
function answerNext(calls: Calls, queueId: string): Promise<BrowserCall> {
  const { backend } = calls.rt;
  if (typeof queueId !== 'string' || !queueId || !backend.dequeue) {
    return calls.rt.refuse(new VoiceBrowserError('invalid_argument', 'answerNext(queueId) takes a queue id, with a backend that has dequeue()'));
  }
  return takeCaller(calls, `queue:${queueId}`, (_, options) => backend.dequeue!(queueId, options).then((r) => asBrowserCall(r.call)), { queueId });
}

/** accept() of the offer ringing now: the read of its call as the attempt's request. */
function accept(calls: Calls): Promise<BrowserCall> {
  const { offer } = calls.rt.status();
  if (!offer || !calls.rt.backend.getQueueCall) return calls.rt.refuse(new VoiceBrowserError('no_active_call', 'accept() needs an offered caller ringing'));
  return takeCaller(calls, `offer:${offer.callId}`, (routes, options) => routes.read(offer.callId, options), { queueId: offer.queueId ?? undefined, accept: true });
}

/** monitor(): a leg of call `callId` that rings this supervisor's page, listened to as the attempt's call. */
function monitor(calls: Calls, callId: string): Promise<BrowserCall> {
  const { backend } = calls.rt;
  if (typeof callId !== 'string' || !callId || !backend.monitorCall || !backend.getQueueCall) {
    return calls.rt.refuse(new VoiceBrowserError('invalid_argument', 'monitor(callId) takes a call id, with a backend that has monitorCall() and getQueueCall()'));
  }
  const unknown = new VoiceBrowserError('monitor_outcome_unknown', 'the monitor request got no answer: the call shows here if a leg was made');
  return takeCaller(calls, `monitor:${callId}`, (_, options) => backend.monitorCall!(callId, options).then((r) => asBrowserCall(r.call)), { monitor: callId }, unknown);
}

/**
 * startRecording() and stopRecording() of the current call, one of this page's own (a monitor leg is not):
 * `status().recording` shows the service's answer. The recording is stopped by the id the start's answer gave.
 */
async function record(calls: Calls, start: boolean): Promise<void> {
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

/** setAvailability(): the user's word, sent whether connected or not; the status shows the service's answer. */
async function setAvailability(rt: Runtime, availability: Availability): Promise<void> {
  const { backend } = rt;
  if ((availability !== 'available' && availability !== 'away') || !backend.setAvailability) {
    return rt.refuse(new VoiceBrowserError('invalid_argument', "setAvailability() takes 'available' or 'away', with a backend that has setAvailability()"));
  }
  try {
    // Not the connection's lifetime: availability is the user's word, connected or not.
    const said = await backend.setAvailability(availability, { signal: new AbortController().signal });
    rt.dispatch({ type: 'availability_read', availability: said.availability });
  } catch (error) {
    return rt.refuse(toVoiceError(error, 'network_error', 'setAvailability() got no answer'));
  }
}

/** decline() of the offer ringing now: refused with no offer, else the call machine lets it go. */
function decline(rt: Runtime): Promise<void> {
  if (!rt.status().offer) return rt.refuse(new VoiceBrowserError('no_active_call', 'decline() needs an offered caller ringing'));
  rt.dispatch({ type: 'offer_declined' });
  return Promise.resolve();
}

/** startCall(), the queue's claims, recordings, availability and sendDtmf() over one runtime. */
export function createCallControl(rt: Runtime) {
  const calls: Calls = { rt };
  /** What the server holds now (read as the SIP part loads, on the first connect()). */
  void rt.backend.getAvailability?.({ signal: rt.signal() }).then(({ availability }) => rt.dispatch({ type: 'availability_read', availability }), () => undefined);
  return {
    startCall: (input: CallInput, callOptions: { idempotencyKey: string }) => startCall(calls, input, callOptions),
    answerNext: (queueId: string) => answerNext(calls, queueId),
    accept: () => accept(calls),
    monitor: (callId: string) => monitor(calls, callId),
    startRecording: () => record(calls, true),
    stopRecording: () => record(calls, false),
    decline: () => decline(rt),
    setAvailability: (availability: Availability) => setAvailability(rt, availability),
    sendDtmf: (digit: string) => sendDigit(rt.link, whyNoDigits(rt.status()), digit).catch((error: unknown) => rt.refuse(toVoiceError(error, 'dtmf_outcome_unknown', 'sendDtmf() failed'))),
  };
}
