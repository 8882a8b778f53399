import type { IncomingInviteRequest } from 'sip.js/lib/core/messages/methods/invite.js';
import type { AudioSessionHandler } from '../media/audio-session-handler.js';
import type { Clock } from '../../../core/clock.js';
import { VoiceBrowserError } from '../../../core/errors.js';
import { microphoneError } from '../../../core/microphone-error.js';
import { enter, refuse, sdp, type Call } from './sip-call.js';
import { ACCEPTED_BODIES, expiresMs, offerOf, requiresReliable, unsupportedExtensions } from './sip-invite-body.js';
import type { LinkEvent } from '../../../runtime/sip-link.js';
import { follow } from './sip-offer-answer.js';
import { ringReliably } from './sip-reliable-ringing.js';

/**
 * The INVITEs of the service over SIP.js's core, as the helper sees them: each checked (RFC 3261 section 8.2:
 * extensions, body), rung (reliably when required, RFC 3262), told to the helper, and answered, declined,
 * withdrawn (CANCEL, `Expires`) or refused at close, each with exactly one final response; the answered call's
 * dialog is the offer/answer's, its media the call watch's, and INFO goes in it from here. Loaded with the link,
 * on `connect()`. SIP.js's API layer (Invitation, Session) is left out for its bytes: the core's transactions and
 * dialog do the SIP.
 */

export type { Call, CallState } from './sip-call.js';
export { hangUp } from './sip-call.js';

/** Sends one SIP INFO in the established call (DTMF when RFC 4733 was not negotiated). */
export function sendInfo(call: Call | undefined, contentType: string, content: string): Promise<void> {
  const dialog = call?.dialog;
  if (call?.state !== 'established' || !dialog) return Promise.reject(new VoiceBrowserError('no_active_call', 'the call is not established'));
  return new Promise<void>((resolve, reject) => {
    dialog.info(
      { onAccept: () => resolve(), onReject: (response) => reject(new Error(`INFO answered ${response.message.statusCode}`)) },
      { body: { contentDisposition: 'render', contentType, content } },
    );
  });
}

/** The call an INVITE names: `X-Browser-Call-Id` for a browser call, `X-Call-Id` for a caller claimed from a queue. */
export const callIdOf = (request: IncomingInviteRequest['message']): string | undefined => request.getHeader('X-Browser-Call-Id') ?? request.getHeader('X-Call-Id');

/**
 * Refuses an INVITE the page cannot take before anyone sees it, with the status RFC 3261 names; true when it
 * did. An extension required and not supported: 420 with `Unsupported` (section 8.2.2.3); a body it cannot read:
 * 415 with `Accept` (section 8.2.3), or 488 for a multipart body without SDP.
 */
function refusedAtOnce(request: IncomingInviteRequest): boolean {
  const unsupported = unsupportedExtensions(request.message);
  if (unsupported.length) return !!request.reject({ statusCode: 420, extraHeaders: [`Unsupported: ${unsupported.join(', ')}`] });
  const offer = offerOf(request.message);
  if (!('refuse' in offer)) return false;
  return !!request.reject({ statusCode: offer.refuse, extraHeaders: offer.refuse === 415 ? [`Accept: ${ACCEPTED_BODIES}`] : [] });
}

/** What the INVITEs' keeper is made with. */
export interface InvitesOptions {
  emit: (event: LinkEvent) => void;
  microphone: string | undefined;
  clock: Clock;
  /** Runs as an answer starts, so the call is followed from its first change of state. */
  onAccept: (call: Call) => void;
  /** Makes a call's media. */
  makeHandler: () => AudioSessionHandler;
  /** What our requests and 2xx in the dialog carry besides the core's (the Contact and Allow). */
  headers?: () => string[];
}

/**
 * Rings an INVITE: 100 Trying, then 180 (reliably, RFC 3262, when the INVITE requires it). `withdraw` runs on
 * its CANCEL or once its `Expires` passes (487), or when its reliable 180 is never acknowledged (504).
 */
function ring(call: Call, clock: Clock, withdraw: (statusCode?: number) => void): void {
  const { request } = call;
  request.delegate = { onCancel: () => withdraw() };
  // RFC 3261 section 20.19: unanswered when its time passes, the INVITE is answered 487.
  const expires = expiresMs(request.message);
  if (expires !== undefined) {
    const timer = clock.setTimeout(() => withdraw(), expires);
    call.expiry = () => clock.clearTimeout(timer);
  }
  request.trying();
  if (requiresReliable(request.message)) ringReliably(request, clock, () => withdraw(504));
  else request.progress({ statusCode: 180 });
}

/** Answers 500 an INVITE whose taking failed, unless it has its final response already (the failure came after). */
function refuseBroken(request: IncomingInviteRequest): void {
  try {
    request.reject({ statusCode: 500 });
  } catch {
    // Answered already.
  }
}

/**
 * A queue's caller: their number is the From's user part, E.164 without its `+` as SIP URIs write it. A
 * supervisor's monitor leg (`X-Monitored-Call-Id`) is no caller to offer.
 */
function callerOf(message: IncomingInviteRequest['message']): { caller?: string } {
  const user = message.from.uri.user ?? '';
  const queued = message.hasHeader('X-Call-Id') && !message.hasHeader('X-Monitored-Call-Id');
  return queued ? { caller: /^\d+$/.test(user) ? `+${user}` : user } : {};
}

/**
 * Answers a call: the offer to the handler, its answer in the 200 OK (an offerless INVITE: our offer there, its
 * answer from the ACK). The offer refused answers 488, the microphone failing 480, anything else 500. The call is
 * in `answering` until its INVITE has its final response.
 */
async function answerCall(call: Call, { microphone, onAccept, makeHandler }: InvitesOptions, answering: Set<Call>): Promise<void> {
  answering.add(call);
  let status = 500;
  try {
    onAccept(call);
    const handler = (call.handler = makeHandler());
    const offer = offerOf(call.request.message);
    status = 488;
    if ('sdp' in offer && offer.sdp) await handler.setDescription(offer.sdp);
    status = 480;
    // A supervisor's monitor leg is answered listen-only: no microphone (audio false), so the answer is recvonly.
    const listen = call.request.message.hasHeader('X-Monitored-Call-Id');
    const description = await handler.getDescription({ constraints: { audio: !listen && (microphone ? { deviceId: { exact: microphone } } : true), video: false } });
    // Withdrawn meanwhile (a CANCEL, the INVITE's expiry, or close()).
    if (call.state === 'terminated') return;
    status = 500;
    call.awaitingAnswer = 'sdp' in offer && offer.sdp ? undefined : 'invite';
    follow(call, call.request.accept({ statusCode: 200, body: sdp(description) }).session);
    enter(call, 'established');
  } catch (cause) {
    // Withdrawn while we answered (a CANCEL crossed our 200 OK): not the page's failure.
    if (call.state === 'terminated') return;
    enter(call, 'terminated');
    // Unless the 200 OK went already (and something after it failed).
    refuse(call, status);
    throw status === 480 ? microphoneError(cause) : new VoiceBrowserError('connection_failed', "the call could not be answered in the browser: the voice service's offer could not be taken", { cause });
  } finally {
    answering.delete(call);
  }
}

/**
 * The INVITEs not yet answered, kept by id: each told to the helper as data (`invite_received`), answered or
 * declined when it names the id back.
 */
export function createInvites(options: InvitesOptions) {
  const { emit, clock, headers = () => [] } = options;
  const pending = new Map<number, Call>();
  /** The calls being answered: their INVITE still has no final response. */
  const answering = new Set<Call>();
  let last = 0;
  /**
   * The INVITE can no longer be answered: the service gave it up (CANCEL, or its `Expires` passed: 487), or never
   * acknowledged our reliable 180 (504). The helper hears it withdrawn, and reads the call now.
   */
  const withdraw = (id: number, call: Call, statusCode = 487) => {
    if (call.state !== 'initial') return;
    pending.delete(id);
    emit({ type: 'invite_withdrawn', id, callId: callIdOf(call.request.message) });
    refuse(call, statusCode);
    enter(call, 'terminated');
  };
  return {
    /** An INVITE from the service; nothing thrown here reaches the page: a failure answers it 500. */
    received(request: IncomingInviteRequest): void {
      try {
        if (refusedAtOnce(request)) return;
        const id = ++last;
        const call: Call = { state: 'initial', request, listeners: [], headers: headers() };
        ring(call, clock, (statusCode) => withdraw(id, call, statusCode));
        pending.set(id, call);
        emit({ type: 'invite_received', invite: { id, callId: callIdOf(request.message), at: clock.now(), ...callerOf(request.message) } });
      } catch {
        refuseBroken(request);
      }
    },
    /** Answers the INVITE `id` names, if it still waits (see {@link answerCall}). */
    async answer(id: number): Promise<void> {
      const call = pending.get(id);
      pending.delete(id);
      if (call) await answerCall(call, options, answering);
    },
    decline(id: number, statusCode = 486): void {
      const call = pending.get(id);
      pending.delete(id);
      if (!call) return;
      enter(call, 'terminated');
      refuse(call, statusCode);
    },
    /**
     * The link closes: every INVITE still without its final response (ringing, or being answered) is refused
     * 480, so the service rings this page no more and no microphone is taken for it.
     */
    close(): void {
      for (const id of [...pending.keys()]) this.decline(id, 480);
      for (const call of answering) {
        refuse(call, 480);
        enter(call, 'terminated');
      }
    },
  };
}
