import type { IncomingInviteRequest } from 'sip.js/lib/core/messages/methods/invite.js';
import type { Session } from 'sip.js/lib/core/session/session.js';
import type { SessionDelegate } from 'sip.js/lib/core/session/session-delegate.js';
import type { AudioSessionHandler } from '../media/audio-session-handler.js';
import type { Clock } from '../../../core/clock.js';

/**
 * One INVITE from the service and, once answered, its call: the record the link's session (the INVITE), its
 * offer/answer (its exchanges) and the call's watch (its media) share, and the moves every one of them makes
 * on it. Part of the SIP chunk.
 */

/** Where an INVITE the link keeps stands: not answered yet, answered (200 OK sent), or over. */
export type CallState = 'initial' | 'established' | 'terminated';

/** How the far end holds the call (RFC 3264 section 8.4): it only sends (`sendonly`), or nothing flows (`inactive`). */
export type Hold = 'sendonly' | 'inactive';

/** News of a call for its watch: the far end holds it or took it off hold, or the call failed (with why). */
export type CallNews = { held: boolean } | { failed: string };

/** One INVITE from the service and, once answered, its call. */
export interface Call {
  state: CallState;
  readonly request: IncomingInviteRequest;
  /** The call's media, made at the answer. */
  handler?: AudioSessionHandler;
  /** The dialog the answer confirmed. */
  dialog?: Session;
  /** The in-dialog requests the call's watch answers. */
  delegate?: Pick<SessionDelegate, 'onInfo' | 'onNotify' | 'onRefer'>;
  /** Told each change of state. */
  readonly listeners: Array<(state: CallState) => void>;
  /** What our requests and 2xx in the dialog carry besides the core's: the Contact and Allow (RFC 3261 section 12.2.1.1). */
  readonly headers: string[];
  /** The offer/answer exchange under way, and whose: one at a time in a dialog (RFC 3264 section 4). */
  exchange?: 'ours' | 'theirs';
  /** Our offer went in a 2xx and its answer comes in the ACK (RFC 3261 section 13.2.1): of the INVITE or a re-INVITE. */
  awaitingAnswer?: 'invite' | 'reinvite';
  /** A target refresh waits for the exchange under way to end (with the clock to time its retry by). */
  refreshDue?: Clock;
  /** The far end holds the call. */
  held?: Hold;
  /** Hears the call's news (its watch). */
  tell?: (news: CallNews) => void;
  /** The end of an unanswered INVITE's `Expires` (RFC 3261 section 20.19), cleared at its final response. */
  expiry?: () => void;
}

/** Moves the call on; past `initial` its expiry is over, at its end its media closes, releasing the microphone. */
export function enter(call: Call, state: CallState): void {
  if (call.state === 'terminated') return;
  call.state = state;
  call.expiry?.();
  if (state === 'terminated') call.handler?.close();
  for (const listener of call.listeners) listener(state);
}

/** Answers the INVITE with `statusCode`, if it still can be: the core throws once its transaction is past that. */
export function refuse(call: Call, statusCode: number, extraHeaders?: string[]): void {
  try {
    call.request.reject({ statusCode, extraHeaders });
  } catch {
    // Answered already, or withdrawn: nothing to refuse.
  }
}

/** A session description as the core carries it. */
export const sdp = (content: string) => ({ contentDisposition: 'session', contentType: 'application/sdp', content });

/**
 * Sends BYE for an established call, which ends now. Before the ACK of our 200 OK the dialog may not send it
 * (RFC 3261 section 15): it goes once the ACK comes, or the wait for it ends.
 */
export function hangUp(call: Call | undefined): void {
  const dialog = call?.dialog;
  if (call?.state !== 'established' || !dialog) return;
  const bye = () => void dialog.bye();
  try {
    bye();
  } catch {
    dialog.delegate = { ...dialog.delegate, onAck: bye, onAckTimeout: bye };
  }
  enter(call, 'terminated');
}
