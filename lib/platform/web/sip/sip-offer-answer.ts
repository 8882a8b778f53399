import type { AckableIncomingResponseWithSession, IncomingInviteRequest } from 'sip.js/lib/core/messages/methods/invite.js';
import type { IncomingRequestMessage } from 'sip.js/lib/core/messages/incoming-request-message.js';
import type { ResponseOptions } from 'sip.js/lib/core/messages/outgoing-response.js';
import type { Session } from 'sip.js/lib/core/session/session.js';
import type { Clock } from '../../../core/clock.js';
import { ACCEPTED_BODIES, offerOf, unsupportedExtensions } from './sip-invite-body.js';
import { enter, hangUp, sdp, type Call, type Hold } from './sip-call.js';

/**
 * The offer/answer exchanges of an answered call, owned by its dialog (RFC 3264 section 4: one at a time), not
 * read from the peer connection's signaling state: the far end's re-INVITE or UPDATE answered (or refused 491 while
 * ours is under way, RFC 3261 section 14.2, RFC 3311 section 5.2), its hold kept (RFC 3264 section 8.4), and our
 * re-INVITE: an ICE restart, or the target refresh after a reconnect (RFC 3261 section 12.2), retried after a 491
 * (section 14.1). Part of the SIP chunk.
 */

/**
 * The far end's hold, read from its offer: `sendonly`, `inactive`, or the old `c=0.0.0.0` (RFC 3264 section 8.4).
 * The old form counts only from a far end without ICE: an ICE agent may write 0.0.0.0 there as a placeholder while
 * its candidates say where media goes (RFC 8838, RFC 8839), as the service's WebRTC stack does in every offer.
 */
export function holdOf(offer: string): Hold | undefined {
  const direction = /^a=(sendonly|inactive)\s*$/m.exec(offer)?.[1] as Hold | undefined;
  const ice = /^a=(ice-ufrag|candidate):/m.test(offer);
  return direction ?? (!ice && /^c=IN IP4 0\.0\.0\.0\s*$/m.test(offer) ? 'inactive' : undefined);
}

/**
 * Our description with no direction the hold forbids: held `sendonly`, we only receive; held `inactive`, neither
 * side sends (RFC 3264 sections 6.1 and 8.4). Unchanged when not held.
 */
export function keepHold(description: string, held: Hold | undefined): string {
  if (!held) return description;
  const allowed = held === 'sendonly' ? 'recvonly' : 'inactive';
  return description.replace(/^a=(?:sendrecv|sendonly|recvonly)(\r?\n)/m, (line, eol: string) => (line.startsWith('a=sendonly') && held === 'sendonly' ? `a=inactive${eol}` : `a=${allowed}${eol}`));
}

/** Notes the far end's hold from the offer just answered; told to the call's watch when it changes. */
function noteHold(call: Call, offer: string): void {
  const held = holdOf(offer);
  const was = !!call.held;
  call.held = held;
  if (was !== !!held) call.tell?.({ held: !!held });
}

/**
 * The dialog the answer confirmed, answered as the API layer would: BYE accepted (the call ends), a re-INVITE's
 * offer answered (491 while another exchange is under way, 488 if it cannot be), the answer in an ACK taken
 * (an offerless INVITE's: none, or one that cannot be applied, ends the call), no ACK ended by BYE.
 */
export function follow(call: Call, dialog: Session): void {
  const handler = call.handler;
  if (!handler) return;
  call.dialog = dialog;
  dialog.delegate = {
    ...call.delegate,
    onBye: (request) => {
      request.accept();
      enter(call, 'terminated');
    },
    onInvite: (request) => {
      if (call.exchange) return void request.reject({ statusCode: 491 });
      call.exchange = 'theirs';
      // Offerless, the exchange runs on until the answer in the ACK.
      void answerReinvite(call, request)
        .catch(() => undefined)
        .finally(() => call.awaitingAnswer !== 'reinvite' && exchanged(call, 'theirs'));
    },
    onAck: ({ message }) => {
      const awaiting = call.awaitingAnswer;
      if (!awaiting) return;
      call.awaitingAnswer = undefined;
      const answer = offerOf(message);
      const applied = 'sdp' in answer && answer.sdp ? handler.setDescription(answer.sdp) : Promise.reject(new Error('no answer'));
      applied
        .catch(() => {
          // RFC 3261 section 13.2.1: the offer in our 2xx needed its answer in the ACK. A call without one has no
          // media: it is ended (BYE) and told as failed. A re-INVITE's exchange is only undone; the call goes on.
          if (awaiting === 'reinvite') return handler.rollbackDescription().catch(() => undefined);
          call.tell?.({ failed: "the voice service's ACK brought no usable answer to this page's offer; the call was hung up" });
          hangUp(call);
        })
        .finally(() => exchanged(call, 'theirs'));
    },
    onAckTimeout: () => hangUp(call),
  };
}

/** Answers the far end's re-INVITE: its offer answered in the 200 OK, or, offerless, our offer there. */
async function answerReinvite(call: Call, request: IncomingInviteRequest): Promise<void> {
  const handler = call.handler;
  const offer = offerOf(request.message);
  if (!handler || 'refuse' in offer) return void request.reject({ statusCode: 'refuse' in offer ? offer.refuse : 488 });
  try {
    if (offer.sdp) await handler.setDescription(offer.sdp);
    const description = await handler.getDescription();
    const held = offer.sdp ? holdOf(offer.sdp) : call.held;
    request.accept({ statusCode: 200, body: sdp(keepHold(description, held)), extraHeaders: call.headers });
    if (offer.sdp) noteHold(call, offer.sdp);
    // Offerless, the far end answers in its ACK (RFC 3261 section 14.2).
    else call.awaitingAnswer = 'reinvite';
  } catch {
    await handler.rollbackDescription().catch(() => undefined);
    try {
      request.reject({ statusCode: 488 });
    } catch {
      // Answered already: the failure came after.
    }
  }
}

/**
 * Answers the far end's UPDATE in the call's dialog (RFC 3311), with `headers` (the Contact and Allow) on its 2xx.
 * Without a body, a session refresh (RFC 4028): 200, the call goes on; no `Session-Expires`, as the page does not
 * support the timer extension (RFC 4028 section 9). With an offer, answered in the 200 as a re-INVITE's is (RFC
 * 3311 section 5.2), one exchange at a time: 491 while another is under way, 488 (rolled back) if it cannot be,
 * and outside an answered call. An extension required: 420; a body the page cannot read: 415 or 488.
 */
export function answerUpdate(call: Call | undefined, message: IncomingRequestMessage, reply: (options: ResponseOptions) => void, headers: string[]): void {
  const unsupported = unsupportedExtensions(message);
  if (unsupported.length) return reply({ statusCode: 420, extraHeaders: [`Unsupported: ${unsupported.join(', ')}`] });
  const offer = offerOf(message);
  if ('refuse' in offer) return reply({ statusCode: offer.refuse, extraHeaders: offer.refuse === 415 ? [`Accept: ${ACCEPTED_BODIES}`] : [] });
  const { sdp: remote } = offer;
  if (!remote) return reply({ statusCode: 200, extraHeaders: headers });
  const handler = call?.state === 'established' ? call.handler : undefined;
  if (!call || !handler) return reply({ statusCode: 488 });
  if (call.exchange) return reply({ statusCode: 491 });
  call.exchange = 'theirs';
  handler
    .setDescription(remote)
    .then(() => handler.getDescription())
    .then(
      (local) => {
        reply({ statusCode: 200, body: sdp(keepHold(local, holdOf(remote))), extraHeaders: headers });
        noteHold(call, remote);
      },
      () => handler.rollbackDescription().catch(() => undefined).then(() => reply({ statusCode: 488 })),
    )
    .finally(() => exchanged(call, 'theirs'));
}

/**
 * The most a re-INVITE of ours answered 491 waits, at random, before it goes again: RFC 3261 section 14.1's range
 * for a UAC that does not own the dialog's Call-ID, as the page never does (the service's INVITE made the dialog).
 */
const GLARE_WAIT_MS = 2000;

/**
 * Sends a re-INVITE with a new offer of ours; resolves on its 2xx. `iceRestart`: new ICE credentials (RFC 8839
 * section 4.4.1.1.1); without, the description as it stands, which re-sent on a new flow is the dialog's target
 * refresh. One exchange at a time: refused while another is under way. Answered 491, it is tried again after
 * the wait of {@link GLARE_WAIT_MS}; refused otherwise, the offer is rolled back and the call goes on; a 2xx whose
 * answer cannot be applied ends the call (ACK, then BYE), as SIP.js's API layer did.
 */
export async function reoffer(call: Call, clock: Clock, iceRestart: boolean): Promise<void> {
  if (call.exchange || call.state !== 'established') throw new Error('an offer/answer exchange is under way');
  call.exchange = 'ours';
  try {
    while ((await offerOnce(call, iceRestart)) === 'glare') {
      call.exchange = undefined;
      await new Promise<void>((resolve) => clock.setTimeout(resolve, Math.random() * GLARE_WAIT_MS));
      if (call.exchange || call.state !== 'established') throw new Error('the re-INVITE was overtaken');
      call.exchange = 'ours';
    }
  } finally {
    exchanged(call, 'ours');
  }
}

/** `whose` exchange is over: the next may begin, and a target refresh that waited for it goes now. */
function exchanged(call: Call, whose: Call['exchange']): void {
  if (call.exchange !== whose) return;
  call.exchange = undefined;
  if (call.refreshDue) refreshTarget(call, call.refreshDue);
}

/** One re-INVITE of ours: `glare` when answered 491. */
async function offerOnce(call: Call, iceRestart: boolean): Promise<'done' | 'glare'> {
  const { dialog, handler } = call;
  if (!dialog || !handler) throw new Error('no call to re-offer');
  const offer = keepHold(await handler.getDescription({ offerOptions: { iceRestart } }), call.held);
  return new Promise((resolve, reject) => {
    const refused = (error: Error, glare = false) => {
      handler.rollbackDescription().then(
        () => (glare ? resolve('glare') : reject(error)),
        () => reject(error),
      );
    };
    const onAccept = (response: AckableIncomingResponseWithSession) => {
      response.ack();
      handler.setDescription(response.message.body).then(
        () => resolve('done'),
        (error: unknown) => {
          hangUp(call);
          reject(error as Error);
        },
      );
    };
    try {
      if (call.state !== 'established') throw new Error('the call ended');
      // Any re-INVITE of ours on the flow the link has now refreshes the target.
      call.refreshDue = undefined;
      dialog.invite(
        { onAccept, onReject: ({ message }) => refused(new Error(`re-INVITE answered ${message.statusCode}`), message.statusCode === 491) },
        { body: sdp(offer), extraHeaders: call.headers },
      );
    } catch (error) {
      // The dialog may not send one now (a re-INVITE of the service's still waits for its ACK).
      refused(error as Error);
    }
  });
}

/**
 * The link came back on a new socket while the call is up: a re-INVITE on the new flow refreshes the dialog's
 * remote target at the edge (RFC 3261 section 12.2: a re-INVITE is a target refresh request; RFC 5626 section
 * 5.3), which would otherwise send the call's BYE or re-INVITE down the dead flow. It carries the description as
 * it stands (the same session version when nothing changed, JSEP section 5.2.2), or an ICE restart when the media
 * path is down too. An exchange under way is let finish first.
 */
export function refreshTarget(call: Call, clock: Clock): void {
  const state = call.handler?.peerConnection.connectionState;
  // One exchange at a time: while another runs (its requests may have gone down the dead flow), the refresh waits.
  call.refreshDue = call.exchange ? clock : undefined;
  if (call.state === 'established' && !call.exchange) reoffer(call, clock, state === 'failed' || state === 'disconnected').catch(() => undefined);
}
