import { isTerminal, readTransition, releaseHeld, settle, type CallEffect, type CallEvent, type CallSlice, type InviteRef } from './call-machine.js';
import type { BrowserCall, StatusError } from '../types.js';

/**
 * The call machine's half of the attempts (the call machine draws the whole machine and holds its reads' half):
 * startCall(), answerNext(), accept() and monitor() as attempts, the INVITEs held, answered or refused, the offer
 * and the recording. Pure, as the rest of the machine: `transition(state, event) -> [state, effects]`.
 *
 * @remarks
 * Part of the SIP chunk (its one list names it): every event here comes from a method of the chunk or from the
 * SIP link, so the runtime takes this `transition` with the chunk, and until then runs the reads' half alone.
 */

/** The service named the attempt's call (202, retry, or a reconciling read). */
function admit(state: CallSlice, call: BrowserCall): [CallSlice, CallEffect[]] {
  if (!state.attempt) return [state, []];
  const admitted = { ...state, attempt: { ...state.attempt, phase: 'admitted' as const }, error: null };
  const effects: CallEffect[] = [{ type: 'start_polling', callId: call.id }];
  if (state.hangupWanted && !isTerminal(call)) effects.push({ type: 'hang_up', callId: call.id });
  const [settled, settleEffects] = settle(admitted, call, effects);
  const [released, releaseEffects] = releaseHeld(settled, state.heldInvite?.callId === call.id && !state.hangupWanted && !isTerminal(call));
  return [released, [...settleEffects, ...releaseEffects]];
}

/** The attempt's outcome is unknown: busy stays (spec 3.2), and reads look for its call, never a new dial (spec 7). */
function unknown(state: CallSlice, error: StatusError): [CallSlice, CallEffect[]] {
  if (!state.attempt) return [state, []];
  return [{ ...state, attempt: { ...state.attempt, phase: 'outcome_unknown' }, busy: true, error, answerLost: true }, [{ type: 'start_reconciling' }]];
}

/** DESIGN.md: only our own call's INVITE is answered; it may come before the 202 names the call. */
function receiveInvite(state: CallSlice, invite: InviteRef): [CallSlice, CallEffect[]] {
  const { attempt, call } = state;
  const { callId } = invite;
  // A queue's caller offered to this idle agent (DESIGN.md, "Support desks"): it rings, one at a time.
  if (!attempt && callId && invite.caller && !state.busy && !state.heldInvite) return [{ ...state, heldInvite: invite }, []];
  if (!attempt || !callId || state.hangupWanted) return [state, [{ type: 'reject_invite', invite }]];
  if (call?.id === callId && !isTerminal(call)) return [state, [{ type: 'answer_invite', invite }]];
  if (attempt.phase === 'admitted') return [state, [{ type: 'reject_invite', invite }]];
  // The call is not named yet: hold this INVITE (one at a time) until it is.
  const [released, effects] = releaseHeld(state);
  return [{ ...released, heldInvite: invite }, effects];
}

/** startCall(), answerNext(), accept() or monitor() begins an attempt, or retries one whose outcome is unknown. */
function startAttempt(state: CallSlice, event: Extract<CallEvent, { type: 'attempt_started' }>): [CallSlice, CallEffect[]] {
  const retry = state.attempt?.phase === 'outcome_unknown' && state.attempt.idempotencyKey === event.idempotencyKey;
  const { idempotencyKey, input, queueId, monitor } = event;
  const attempt = { idempotencyKey, input, phase: 'creating' as const, ...(queueId ? { queueId } : {}), ...(monitor ? { monitor } : {}) };
  // A retry is the same intent: a hangup asked for it, and an INVITE held for it, still hold; accept()
  // keeps the offer's INVITE for its attempt. Any other new attempt refuses what was held.
  const [held, effects] = retry || event.accept ? [state, []] : releaseHeld(state);
  return [
    { ...held, attempt, call: null, busy: true, error: null, hangupWanted: retry && state.hangupWanted, recording: false, answerLost: retry },
    // A retry ends the reconciling reads of the lost attempt: its answer will name the call.
    state.attempt?.phase === 'outcome_unknown' ? [...effects, { type: 'stop_polling' }] : effects,
  ];
}

/** One case per event, each the arrows of the call machine's diagram that the event may take; the reads' events go to the other half. */
export function transition(state: CallSlice, event: CallEvent): [CallSlice, CallEffect[]] {
  switch (event.type) {
    case 'attempt_started':
      return startAttempt(state, event);
    case 'offer_declined':
      return state.attempt ? [state, []] : releaseHeld(state);
    case 'offer_read': {
      // Its queue, once read (an offer accepted meanwhile keeps it too, unseen).
      const offer = state.heldInvite;
      return [offer?.callId === event.callId ? { ...state, heldInvite: { ...offer, queueId: event.queueId } } : state, []];
    }
    case 'invite_withdrawn': {
      const held = state.heldInvite;
      // An offer rings no more; an attempt's INVITE is let go once its call is named, which is read then.
      return [held?.id === event.id ? { ...state, heldInvite: state.attempt ? { ...held, withdrawn: true } : null } : state, [{ type: 'read', expect: 'left' }]];
    }
    case 'attempt_reconciled':
      return state.attempt?.phase === 'outcome_unknown' ? admit(state, event.call) : [state, []];
    case 'attempt_admitted':
      return admit(state, event.call);
    case 'hangup_deferred': {
      if (!state.attempt || state.attempt.phase === 'admitted') return [state, []];
      // The INVITE held for this attempt is refused now: a call the user hangs up is never answered.
      return releaseHeld({ ...state, hangupWanted: true });
    }
    case 'attempt_rejected':
      // A retry's refusal may come before the service looks up the key (spec 3.4, 7: a refused credential, a
      // lapsed session): the lost request's call may run, so the attempt stays unknown (spec 3.2) with its INVITE.
      if (state.attempt && state.answerLost) return unknown(state, event.error);
      // Nothing was created, so an INVITE held for this attempt is not ours.
      return releaseHeld({ ...state, attempt: null, busy: state.call !== null && !isTerminal(state.call), error: event.error });
    case 'attempt_unknown':
      return unknown(state, event.error);
    case 'attempt_abandoned':
      if (state.attempt?.phase !== 'outcome_unknown') return [state, []];
      return [{ ...state, attempt: null, busy: false, error: null }, [{ type: 'stop_polling' }]];
    case 'reconcile_exhausted':
      if (state.attempt?.phase !== 'outcome_unknown') return [state, []];
      // A dequeue or a monitor has no key to retry with: reads of the agent's calls past any deadline that found
      // none prove nothing was claimed or made for it.
      if (state.attempt.queueId || state.attempt.monitor) return releaseHeld({ ...state, attempt: null, busy: false, error: event.error });
      return [{ ...state, error: event.error }, [{ type: 'stop_polling' }]];
    case 'invite_received':
      return receiveInvite(state, event.invite);
    case 'recording_changed':
      // Only for the call still shown and running: an answer that comes after its end changes nothing.
      return state.call?.id === event.callId && !isTerminal(state.call) ? [{ ...state, recording: event.recording }, []] : [state, []];
    default:
      return readTransition(state, event);
  }
}
