import type { IncomingResponse } from 'sip.js/lib/core/messages/incoming-response.js';
import type { AckableIncomingResponseWithSession, IncomingInviteRequest } from 'sip.js/lib/core/messages/methods/invite.js';
import type { Session } from 'sip.js/lib/core/session/session.js';
import type { SessionDelegate } from 'sip.js/lib/core/session/session-delegate.js';
import type { AudioSessionHandler } from './audio-session-handler.js';
import { watchQuality } from './call-quality.js';
import { createCallWarnings, type AudioLook } from './call-warnings.js';
import type { Clock } from './clock.js';
import { VoiceBrowserError } from './errors.js';
import { microphoneError, type MediaControls } from './media-controls.js';
import { watchMediaPath, type PathSample } from './media-path.js';
import { createMicrophoneMeter, type MeterAudioContext, type MicrophoneMeter } from './microphone-meter.js';
import type { IncomingInvite, LinkEvent } from './sip-link.js';

/**
 * A call's dialog over SIP.js's core: the INVITE as the helper sees it, the answered call followed to its end, and
 * INFO, BYE and the ICE-restart re-INVITE sent in it. With sip-adapter.ts and sip-registration.ts the only files
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
        .then((answer) => void request.accept({ statusCode: 200, body: sdp(answer) }))
        .catch(() => void request.reject({ statusCode: 488 }));
    },
    onAck: ({ message }) => (message.body ? handler.setDescription(message.body) : undefined),
    onAckTimeout: () => hangUp(call),
  };
}

/** What a session's watch reports to, and what it starts once the session is up. */
export interface SessionWatch {
  emit(event: LinkEvent): void;
  media: MediaControls;
  clock: Clock;
  onTerminated(): void;
  /** Makes the AudioContext of a microphone meter (default: the browser's); a seam for tests. */
  audio?: () => MeterAudioContext | undefined;
}

/**
 * Follows an answered session: in-dialog INFO/NOTIFY (a change of the call), media up or failed, quality
 * samples while up, and its end.
 */
export function watchSession(session: Call, callId: string | undefined, { emit, media, clock, onTerminated, audio }: SessionWatch): void {
  let stopQuality: (() => void) | undefined;
  /** The microphone's level where the stats lack it (Firefox): open while the call's media is, closed at its end. */
  let microphone: MicrophoneMeter | undefined;
  // A service may tell of a state change in the dialog (the simulator sends INFO): read the call at once.
  // Setting the delegate means answering ourselves.
  session.delegate = {
    onInfo: (info) => {
      info.accept();
      emit({ type: 'call_changed', callId });
    },
    onNotify: (notification) => {
      notification.accept();
      emit({ type: 'call_changed', callId });
    },
    // A REFER asks the page to transfer the call by dialling another party itself (RFC 3515). The helper only
    // answers the calls its server places, so it declines (603).
    onRefer: (referral) => void referral.reject({ statusCode: 603 }),
  };
  let stopPath: (() => void) | undefined;
  session.listeners.push((state) => {
    if (state === 'established') {
      const { handler } = session;
      const pc = handler?.peerConnection;
      if (handler) handler.onMicrophone = (outcome) => emit({ type: 'microphone', callId, outcome });
      if (pc) {
        const meter = (microphone = createMicrophoneMeter(pc, audio));
        const warnings = createCallWarnings(clock, (warning, raised) => emit({ type: 'warning', callId, warning, raised }));
        stopPath = watchMediaPath({
          sample: async () => {
            const look = await samplePath(pc, meter);
            warnings.look({ ...look, muted: media.isMuted() });
            return look;
          },
          onStateChange: (listener) => {
            pc.addEventListener('connectionstatechange', listener);
            return () => pc.removeEventListener('connectionstatechange', listener);
          },
          clock,
          restartIce: () => restartIce(session),
          onConnected: () => {
            emit({ type: 'media_connected', callId });
            stopQuality ??= watchQuality(
              pc,
              clock,
              (quality) => {
                warnings.quality(quality);
                emit({ type: 'quality', callId, quality });
              },
              meter.read,
            );
          },
          onReconnecting: () => emit({ type: 'media_reconnecting', callId }),
          onFailed: () => emit({ type: 'media_failed', callId }),
        });
      }
      media.applyMute();
      void media.play(handler?.remoteMediaStream);
    }
    if (state === 'terminated') {
      stopPath?.();
      stopQuality?.();
      microphone?.close();
      onTerminated();
      emit({ type: 'session_ended', callId });
    }
  });
}

/**
 * The call's path as media-path.ts judges it: the connection's state, the audio received, the far end's
 * direction; with the microphone's totals for the silent-microphone warning.
 */
async function samplePath(pc: RTCPeerConnection, microphone: MicrophoneMeter): Promise<PathSample & Omit<AudioLook, 'muted'>> {
  let received = 0;
  const report = await pc.getStats();
  report.forEach((stat: { type: string; kind?: string; packetsReceived?: number }) => {
    if (stat.type === 'inbound-rtp' && stat.kind === 'audio') received += stat.packetsReceived ?? 0;
  });
  const mic = microphone.read(report);
  // RFC 3264 section 6.1: a far end that answered recvonly or inactive sends nothing, so its silence says nothing.
  const farEndSends = !/^a=(?:recvonly|inactive)\s*$/m.test(pc.currentRemoteDescription?.sdp ?? '');
  return { state: pc.connectionState, received, farEndSends, micEnergy: mic?.energy, micSeconds: mic?.seconds };
}

/** Restarts the call's ICE by a re-INVITE whose offer carries new ICE credentials; resolves on its 2xx. */
async function restartIce(call: Call): Promise<void> {
  const { dialog, handler } = call;
  if (!dialog || !handler) throw new Error('no call to restart');
  const offer = await handler.getDescription({ offerOptions: { iceRestart: true } });
  await new Promise<void>((resolve, reject) => {
    const onAccept = (response: AckableIncomingResponseWithSession) => {
      response.ack();
      handler.setDescription(response.message.body).then(resolve, reject);
    };
    const onReject = ({ message }: IncomingResponse) => {
      void handler.rollbackDescription();
      reject(new Error(`re-INVITE answered ${message.statusCode}`));
    };
    dialog.invite({ onAccept, onReject }, { body: sdp(offer) });
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
export function createInvites(emit: (event: LinkEvent) => void, microphone: string | undefined, clock: Clock, onAccept: (call: Call) => void, makeHandler: () => AudioSessionHandler) {
  const pending = new Map<number, Call>();
  let last = 0;
  return {
    received(request: IncomingInviteRequest): void {
      const id = ++last;
      const call: Call = { state: 'initial', request, listeners: [] };
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
    decline(id: number): void {
      const call = pending.get(id);
      pending.delete(id);
      if (!call) return;
      enter(call, 'terminated');
      refuse(call, 486);
    },
  };
}
