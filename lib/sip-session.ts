import type { IncomingResponse } from 'sip.js/lib/core/messages/incoming-response.js';
import type { AckableIncomingResponseWithSession, IncomingInviteRequest } from 'sip.js/lib/core/messages/methods/invite.js';
import type { Session } from 'sip.js/lib/core/session/session.js';
import type { SessionDelegate } from 'sip.js/lib/core/session/session-delegate.js';
import type { AudioSessionHandler } from './audio-session-handler.js';
import type { Clock } from './clock.js';
import { VoiceBrowserError } from './errors.js';
import { microphoneError } from './media-controls.js';
import type { LinkEvent } from './sip-link.js';

/**
 * A call's dialog over SIP.js's core: the INVITE as the helper sees it, the answered call's dialog to its end (its
 * media watched by call-watch.ts), and INFO, BYE and the ICE-restart re-INVITE sent in it. With sip-adapter.ts and sip-registration.ts the only files
 * that import SIP.js; loaded with them, on `connect()`. SIP.js's API layer (Invitation, Session) is left out for
 * its bytes: the core's transactions and dialog do the SIP, and this file what the helper needs of the rest: the
 * answer's SDP through our handler (480 when the microphone fails), 487 to a CANCEL, the in-dialog requests
 * answered, a call's three states.
 */

/** Where an INVITE the link keeps stands: not answered yet, answered (200 OK sent), or over. */
export type CallState = 'initial' | 'established' | 'terminated';

/** One INVITE from the service and, once answered, its call. */
export interface Call {
  state: CallState;
  readonly request: IncomingInviteRequest;
  /** The call's media, made at the answer. */
  handler?: AudioSessionHandler;
  /** The dialog the answer confirmed. */
  dialog?: Session;
  /** The in-dialog requests the watch answers ({@link watchSession}). */
  delegate?: Pick<SessionDelegate, 'onInfo' | 'onNotify' | 'onRefer'>;
  /** Told each change of state. */
  readonly listeners: Array<(state: CallState) => void>;
  /** What our requests and 2xx in the dialog carry besides the core's: the Contact and Allow (RFC 3261 section 12.2.1.1). */
  readonly headers: string[];
}

/** Moves the call on; at its end its media closes, releasing the microphone. */
function enter(call: Call, state: CallState): void {
  if (call.state === 'terminated') return;
  call.state = state;
  if (state === 'terminated') call.handler?.close();
  for (const listener of call.listeners) listener(state);
}

/** Answers the INVITE with `statusCode`, if it still can be: the core throws once its transaction is past that. */
function refuse(call: Call, statusCode: number): void {
  try {
    call.request.reject({ statusCode });
  } catch {
    // Answered already, or withdrawn: nothing to refuse.
  }
}

/** The SDP of a message, as the core carries it. */
const sdp = (content: string) => ({ contentDisposition: 'session', contentType: 'application/sdp', content });

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

/**
 * The dialog the answer confirmed, answered as the API layer would: BYE accepted (the call ends), a re-INVITE's
 * offer answered by the handler (488 if it cannot), an offer in an ACK taken, no ACK at all ended by BYE.
 */
function follow(call: Call, dialog: Session, handler: AudioSessionHandler): void {
  call.dialog = dialog;
  dialog.delegate = {
    ...call.delegate,
    onBye: (request) => {
      request.accept();
      enter(call, 'terminated');
    },
    onInvite: (request) => {
      const offer = request.message.body;
      void (offer ? handler.setDescription(offer) : Promise.resolve())
        .then(() => handler.getDescription())
        .then((answer) => void request.accept({ statusCode: 200, body: sdp(answer), extraHeaders: call.headers }))
        .catch(() => {
          void handler.rollbackDescription();
          request.reject({ statusCode: 488 });
        });
    },
    onAck: ({ message }) => (message.body ? handler.setDescription(message.body) : undefined),
    onAckTimeout: () => hangUp(call),
  };
}

/**
 * Restarts the call's ICE by a re-INVITE whose offer carries new ICE credentials; resolves on its 2xx. Refused or
 * not sent, the offer is rolled back; a 2xx whose answer cannot be applied ends the call (ACK, then BYE), as
 * SIP.js's API layer did.
 */
export async function restartIce(call: Call): Promise<void> {
  const { dialog, handler } = call;
  if (!dialog || !handler) throw new Error('no call to restart');
  const offer = await handler.getDescription({ offerOptions: { iceRestart: true } });
  await new Promise<void>((resolve, reject) => {
    const onAccept = (response: AckableIncomingResponseWithSession) => {
      response.ack();
      handler.setDescription(response.message.body).then(resolve, (error: unknown) => {
        hangUp(call);
        reject(error);
      });
    };
    const refused = (error: Error) => {
      void handler.rollbackDescription();
      reject(error);
    };
    const onReject = ({ message }: IncomingResponse) => refused(new Error(`re-INVITE answered ${message.statusCode}`));
    try {
      dialog.invite({ onAccept, onReject }, { body: sdp(offer), extraHeaders: call.headers });
    } catch (error) {
      // The dialog may not send one now (a re-INVITE of the service's still waits for its ACK).
      refused(error as Error);
    }
  });
}

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
 * The INVITEs not yet answered, kept by id: each told to the helper as data (`invite_received`), answered or
 * declined when it names the id back. `onAccept` runs as an answer starts, so the call is followed from its
 * first change of state; `makeHandler` makes its media.
 */
export function createInvites(emit: (event: LinkEvent) => void, microphone: string | undefined, clock: Clock, onAccept: (call: Call) => void, makeHandler: () => AudioSessionHandler, headers: () => string[] = () => []) {
  const pending = new Map<number, Call>();
  let last = 0;
  return {
    received(request: IncomingInviteRequest): void {
      const id = ++last;
      const call: Call = { state: 'initial', request, listeners: [], headers: headers() };
      const { message } = request;
      const callId = callIdOf(message);
      pending.set(id, call);
      // The service gave the INVITE up (the core answered the CANCEL 200; the INVITE is ours to end, 487): the
      // call changed, so it is read now.
      request.delegate = {
        onCancel: () => {
          if (call.state !== 'initial') return;
          pending.delete(id);
          emit({ type: 'invite_withdrawn', id, callId });
          refuse(call, 487);
          enter(call, 'terminated');
        },
      };
      // A queue's caller: their number is the From's user part, E.164 without its `+` as SIP URIs write it. A
      // supervisor's monitor leg (`X-Monitored-Call-Id`) is no caller to offer.
      const user = message.from.uri.user ?? '';
      const queued = message.hasHeader('X-Call-Id') && !message.hasHeader('X-Monitored-Call-Id');
      const caller = queued ? { caller: /^\d+$/.test(user) ? `+${user}` : user } : {};
      emit({ type: 'invite_received', invite: { id, callId, at: clock.now(), ...caller } });
    },
    /** The answer: the offer to the handler, its answer in the 200 OK; the microphone failing declines it (480). */
    async answer(id: number): Promise<void> {
      const call = pending.get(id);
      pending.delete(id);
      if (!call) return;
      onAccept(call);
      const handler = (call.handler = makeHandler());
      try {
        const offer = call.request.message.body;
        if (offer) await handler.setDescription(offer);
        // A supervisor's monitor leg is answered listen-only: no microphone (audio false), so the answer is recvonly.
        const listen = call.request.message.hasHeader('X-Monitored-Call-Id');
        const answer = await handler.getDescription({ constraints: { audio: !listen && (microphone ? { deviceId: { exact: microphone } } : true), video: false } });
        // Withdrawn meanwhile (only a CANCEL ends a call not yet answered).
        if (call.state === 'terminated') return;
        follow(call, call.request.accept({ statusCode: 200, body: sdp(answer) }).session, handler);
        enter(call, 'established');
      } catch (cause) {
        // Withdrawn while we answered (a CANCEL crossed our 200 OK): not the page's failure.
        if (call.state === 'terminated') return;
        enter(call, 'terminated');
        // 480, unless the 200 OK went already (and something after it failed).
        refuse(call, 480);
        throw microphoneError(cause);
      }
    },
    decline(id: number, statusCode = 486): void {
      const call = pending.get(id);
      pending.delete(id);
      if (!call) return;
      enter(call, 'terminated');
      refuse(call, statusCode);
    },
    /** The link closes: every INVITE still ringing is refused (480), so the service rings this page no more. */
    close(): void {
      for (const id of [...pending.keys()]) this.decline(id, 480);
    },
  };
}
