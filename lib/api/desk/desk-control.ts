import { toVoiceError, VoiceBrowserError } from '../../core/errors.js';
import { admit, once, refusal, type Calls } from '../calls/call-request.js';
import { asBrowserCall, queueRoutes } from '../../runtime/queue-call.js';
import type { Runtime } from '../../runtime/runtime-types.js';
import type { CallRoutes } from '../../runtime/call-reads.js';
import type { Availability, BrowserCall } from '../../core/types.js';

/**
 * A support desk's operations (DESIGN.md, "Support desks"): answerNext() of a queue, accept() and decline() of an
 * offered caller, a supervisor's monitor(), and the agent's availability. Each claim is an attempt as a page's own
 * call is, on the same record of the request in flight.
 *
 * @remarks
 * Part of the SIP chunk, as a page's own calls are: a claimed caller rings this page over the SIP link.
 */

/** What claims a queue's caller: the request, on the queue's routes, that makes the call this agent's. */
type Claim = (routes: CallRoutes, options: { signal: AbortSignal }) => Promise<BrowserCall>;

/**
 * Takes a queue's caller as the attempt (DESIGN.md, "Support desks"): `claim` is the request that makes the
 * call this agent's, a dequeue (answerNext) or the read of an offered call (accept: its INVITE, held, becomes
 * the attempt's and is answered only once that read shows the call bridging here), or a supervisor's monitor
 * leg (monitor(): the link answers its INVITE listen-only). Never retried by itself: reads of the agent's
 * calls find the call if the claim made one.
 */
function takeCaller(calls: Calls<Runtime>, key: string, claim: Claim, origin: { queueId?: string; monitor?: string; accept?: true }, unknown = lostClaim()): Promise<BrowserCall> {
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
function answerNext(calls: Calls<Runtime>, queueId: string): Promise<BrowserCall> {
  const { backend } = calls.rt;
  if (typeof queueId !== 'string' || !queueId || !backend.dequeue) {
    return calls.rt.refuse(new VoiceBrowserError('invalid_argument', 'answerNext(queueId) takes a queue id, with a backend that has dequeue()'));
  }
  return takeCaller(calls, `queue:${queueId}`, (_, options) => backend.dequeue!(queueId, options).then((r) => asBrowserCall(r.call)), { queueId });
}

/** accept() of the offer ringing now: the read of its call as the attempt's request. */
function accept(calls: Calls<Runtime>): Promise<BrowserCall> {
  const { offer } = calls.rt.status();
  if (!offer || !calls.rt.backend.getQueueCall) return calls.rt.refuse(new VoiceBrowserError('no_active_call', 'accept() needs an offered caller ringing'));
  return takeCaller(calls, `offer:${offer.callId}`, (routes, options) => routes.read(offer.callId, options), { queueId: offer.queueId ?? undefined, accept: true });
}

/** monitor(): a leg of call `callId` that rings this supervisor's page, listened to as the attempt's call. */
function monitor(calls: Calls<Runtime>, callId: string): Promise<BrowserCall> {
  const { backend } = calls.rt;
  if (typeof callId !== 'string' || !callId || !backend.monitorCall || !backend.getQueueCall) {
    return calls.rt.refuse(new VoiceBrowserError('invalid_argument', 'monitor(callId) takes a call id, with a backend that has monitorCall() and getQueueCall()'));
  }
  const unknown = new VoiceBrowserError('monitor_outcome_unknown', 'the monitor request got no answer: the call shows here if a leg was made');
  return takeCaller(calls, `monitor:${callId}`, (_, options) => backend.monitorCall!(callId, options).then((r) => asBrowserCall(r.call)), { monitor: callId }, unknown);
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

/** The desk's operations over one runtime's calls, shared with a page's own; reads the availability the server holds as they load. */
export function createDeskControl(calls: Calls<Runtime>) {
  const { rt } = calls;
  // What the server holds now (read as the SIP part loads, on the first connect()).
  void rt.backend.getAvailability?.({ signal: rt.signal() }).then(({ availability }) => rt.dispatch({ type: 'availability_read', availability }), () => undefined);
  return {
    answerNext: (queueId: string) => answerNext(calls, queueId),
    accept: () => accept(calls),
    monitor: (callId: string) => monitor(calls, callId),
    decline: () => decline(rt),
    setAvailability: (availability: Availability) => setAvailability(rt, availability),
  };
}

/** The desk's operations, as the helper calls them. */
export type DeskControl = ReturnType<typeof createDeskControl>;
