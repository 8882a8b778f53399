import { idleCall, isTerminal, readTransition, type CallEvent, type CallSlice } from '../core/machines/call-machine.js';
import { createCallMilestones, type CallMilestone } from '../core/call-milestones.js';
import { browserCallRoutes, createCallReads, type CallRoutes } from './call-reads.js';
import { disconnected, transition as connectionTransition, type ConnectionEvent, type ConnectionSlice } from '../core/machines/connection-machine.js';
import { toVoiceError, type VoiceBrowserError } from '../core/errors.js';
import type { ExpiryTimer } from './expiry-timer.js';
import { noMedia, type MediaEvent, type MediaSlice } from '../core/machines/media-machine.js';
import { noSettings, transition as settingsTransition, type SettingsEvent, type SettingsSlice } from '../core/machines/settings-machine.js';
import type { CallOrigin, Effect, EventsDisjoint, HelperEvent, LinkParts, Runtime, RuntimeSeams } from './runtime-types.js';
import type { IncomingInvite, SipLink } from './sip-link.js';
import { audioMay, CONNECTION_TRANSITIONS } from '../core/state-transitions.js';
import { createStatusStore, type StatusStore } from './status-store.js';
import type { VoiceBrowserOptions } from '../core/helper-types.js';
import type { BrowserCall, Offer, SessionTransport, StatusError, VoiceBrowserStatus } from '../core/types.js';
import type { VoiceBackend } from '../core/backend-types.js';

/**
 * The helper's one loop. Every change is an event, from a method (the session's, the calls'), a read of the call,
 * a timer or the SIP link: `dispatch` offers it to the pure machines (the connection's, the call's, the media's,
 * the settings'; each takes its own events), commits what
 * they decided to the status, the one writer of it (checked against the exported transition lists), then runs
 * their effects, as data, against the ports: the backend, the SIP link, the clock, the call's reads.
 */

const disjoint: EventsDisjoint = true;
void disjoint;

/** The offer ringing (`status().offer`): a queue caller's INVITE the call machine holds with no attempt. */
function offerOf({ attempt, heldInvite: invite }: CallSlice): Offer | null {
  return !attempt && invite?.caller ? { callId: invite.callId!, caller: invite.caller, queueId: invite.queueId ?? null, since: invite.at } : null;
}

/** How many past calls the helper remembers (for reconciliation and once-only milestones). */
const RECENT_CALLS = 16;

/** The fields of the status whose every move is checked, with the only moves their machine may make. */
const CHECKED = [
  ['connection', (from: string, to: string) => CONNECTION_TRANSITIONS.some(([a, b]) => a === from && b === to)],
  ['audio', audioMay],
] as const satisfies ReadonlyArray<readonly [keyof VoiceBrowserStatus, (from: never, to: never) => boolean]>;

/**
 * The one writer of the status. A move of the connection or the audio that its list lacks
 * ({@link CONNECTION_TRANSITIONS}, {@link AUDIO_TRANSITIONS}) is refused, the status left as it was: a bug of
 * the helper's, so it is thrown too, outside the helper's flow (a test fails on it; a page's console shows it).
 */
function commit(store: StatusStore, patch: Partial<VoiceBrowserStatus>): boolean {
  const status = store.get();
  for (const [field, may] of CHECKED) {
    const from = status[field];
    const to = patch[field] ?? from;
    if (from !== to && !may(from as never, to as never)) {
      queueMicrotask(() => {
        throw Error(`voice-browser: ${field} ${from} > ${to}`);
      });
      return false;
    }
  }
  store.commit(patch);
  return true;
}

/** The slices of the machines whose moves the status shows, in the loop's order. */
type Slices = [ConnectionSlice, CallSlice, MediaSlice, SettingsSlice];

/** What the status shows of the machines' moves (`before` to `after`): each field from the machine that owns it. */
function patchOf([connection0, call0, media0, settings0]: Slices, [connection, call, media, settings]: Slices, event: HelperEvent, effects: Effect[], shown: StatusError | null): Partial<VoiceBrowserStatus> {
  const patch: Partial<VoiceBrowserStatus> = {};
  if (connection !== connection0) Object.assign(patch, { connection: connection.connection, session: connection.session });
  if (call !== call0) {
    Object.assign(patch, { attempt: call.attempt, call: call.call, busy: call.busy, offer: offerOf(call), recording: call.recording });
    // A new attempt clears what an earlier action left shown (a refused input, say): the user moved on.
    if (call.error !== call0.error || event.type === 'attempt_started') patch.error = call.error;
  }
  if (media !== media0) Object.assign(patch, { audio: media.audio, warnings: media.warnings });
  if (settings !== settings0) Object.assign(patch, settings);
  for (const effect of effects) if (effect.type === 'report' && (!('code' in effect) || shown?.code === effect.code)) patch.error = effect.error;
  return patch;
}

/**
 * Creates the runtime. A factory whose closure is the loop's state: the machines' states, the ports, and what
 * the effects hold (the one hangup in flight). One closure past 60 lines: dispatch and run share it; the runtime's
 * members are documented on its type.
 */
export function createRuntime(options: VoiceBrowserOptions, seams: RuntimeSeams): Runtime {
  const backend: VoiceBackend = options.backend;
  const { clock } = seams;
  const store = createStatusStore(options, clock);
  let connectionSlice: ConnectionSlice = disconnected;
  let callSlice: CallSlice = idleCall;
  let mediaSlice: MediaSlice = noMedia;
  let settingsSlice = noSettings;
  /** The media machine: it comes with the SIP chunk, as only a link brings news of a call's media. */
  let media: LinkParts['mediaTransition'] | undefined;
  /** The call machine: its reads' half until the SIP chunk brings the whole, attempts included, as only the chunk makes attempts. */
  let callTransition = readTransition;
  /** Aborted by disconnect(): requests and reads of this connection's lifetime stop with it. */
  let lifetime = new AbortController();
  let link: SipLink | undefined;
  /** The link whose events count; events of an older link (before a renewal) are ignored. */
  let linkToken: object | undefined;
  let origin: CallOrigin | undefined;
  let hangingUp: [callId: string, request: Promise<void>] | undefined;
  /** Only startCall() and answerNext() lose an answer, and both come with the SIP chunk that brings this. */
  let reconcile: (() => void) | undefined;
  /** The session's expiry timer: only a registered session is watched, so it comes with the SIP chunk. */
  let expiry: ExpiryTimer | undefined;
  const milestones = createCallMilestones(store.timing, RECENT_CALLS);
  const callTiming = (name: CallMilestone, callId: string | undefined) => milestones.report(name, callId, origin?.startedAt);
  const browserRoutes = browserCallRoutes(backend, () => origin?.sessionId, milestones.seen);
  const routes = () => origin?.routes ?? browserRoutes;

  /** The loop: every machine takes the event, the status shows what they decided, then their effects run. */
  function dispatch(event: HelperEvent): void {
    const [connection, connectionEffects] = connectionTransition(connectionSlice, event as ConnectionEvent);
    const [call, callEffects] = callTransition(callSlice, event as CallEvent);
    const shown = call.call;
    const [audio, mediaEffects] = media ? media(mediaSlice, event as MediaEvent, shown && !isTerminal(shown) ? shown.id : null) : [mediaSlice, []];
    const [settings, settingsEffects] = settingsTransition(settingsSlice, event as SettingsEvent);
    const effects: Effect[] = [...connectionEffects, ...callEffects, ...mediaEffects, ...settingsEffects];
    const patch = patchOf([connectionSlice, callSlice, mediaSlice, settingsSlice], [connection, call, audio, settings], event, effects, store.get().error);
    if (Object.keys(patch).length && !commit(store, patch)) return;
    const before = callSlice;
    [connectionSlice, callSlice, mediaSlice, settingsSlice] = [connection, call, audio, settings];
    if (call !== before && call.call) {
      milestones.remember(call.call.id);
      if (event.type === 'attempt_admitted' || event.type === 'attempt_reconciled') callTiming('call_admitted', call.call.id);
      if (call.call.state === 'connected') callTiming('connected', call.call.id);
    }
    for (const effect of effects) run(effect);
  }

  /** Reads the call now, and again soon until its state changed (an answer, a change in the dialog). */
  function readLeft(): void {
    const before = callSlice.call?.state;
    reads.pollNow({ shown: () => callSlice.call?.state !== before });
  }

  /** The interpreter: each effect the machines decided, against the ports. */
  function run(effect: Effect): void {
    switch (effect.type) {
      case 'watch_expiry':
        return expiry?.watch(effect.expiresAt);
      case 'stop_expiry':
        return expiry?.stop();
      case 'start_polling':
        return lifetime.signal.aborted ? reads.stop() : reads.poll(effect.callId);
      case 'start_reconciling':
        return lifetime.signal.aborted ? reads.stop() : reconcile?.();
      case 'stop_polling':
        return reads.stop();
      case 'hang_up':
        return void hangupCall().catch(() => undefined);
      case 'call_ended':
        callTiming('ended', effect.call.id);
        // The service says both legs are down; make sure our half of the dialog is too.
        link?.endSession();
        dispatch({ type: 'media_ended' });
        return reads.ended();
      case 'answer_invite':
        return answer(effect.invite);
      case 'reject_invite':
        return link?.decline(effect.invite.id);
      case 'timing':
        return effect.once ? callTiming(effect.name as CallMilestone, effect.callId) : store.timing(effect.name, origin?.startedAt, effect.callId, effect.extra);
      case 'read':
        if (effect.expect === 'left') return readLeft();
        return reads.pollNow(effect.expect && { shown: () => !!callSlice.call && isTerminal(callSlice.call) });
    }
  }

  /** Answers INVITE `invite.id`; one the service withdrew meanwhile settles quietly, and the call's read says what became of it. */
  function answer(invite: IncomingInvite): void {
    callTiming('invite_received', invite.callId);
    dispatch({ type: 'answering' });
    link?.answer(invite.id).catch((error: VoiceBrowserError) => void refused(error)).then(readLeft);
  }

  /** A refused input or a failed request that changed no state: the settings machine shows its error. */
  function refused(error: VoiceBrowserError): VoiceBrowserError {
    dispatch({ type: 'refused', error: error.toStatus() });
    return error;
  }

  /** The hang_up effect, and hangup() of a named call: one request at a time for each call (an earlier call's may still wait). */
  function hangupCall(): Promise<void> {
    const { call } = callSlice;
    if (hangingUp && hangingUp[0] === call?.id) return hangingUp[1];
    if (!call || isTerminal(call)) return Promise.resolve();
    const done: Promise<void> = postHangup(call).finally(() => hangingUp?.[1] === done && (hangingUp = undefined));
    return (hangingUp = [call.id, done])[1];
  }

  async function postHangup(call: BrowserCall): Promise<void> {
    try {
      dispatch({ type: 'call_read', call: await routes().hangup(call.id, { signal: lifetime.signal }) });
    } catch (cause) {
      const error = toVoiceError(cause, 'cleanup_unknown', 'the hangup request failed; call hangup() again');
      // The service did not take the hangup: end our leg by SIP BYE, which ends the call too; unless it is an earlier
      // call's hangup failing late, and the SIP session and the status are another call's now.
      if (callSlice.call?.id !== call.id) throw error;
      link?.endSession();
      throw refused(error);
    } finally {
      reads.pollNow();
    }
  }

  const rt = {
    backend,
    clock,
    dispatch,
    routes,
    get connectionState(): ConnectionSlice {
      return connectionSlice;
    },
    get callState(): CallSlice {
      return callSlice;
    },
    status: store.get,
    timing: store.timing,
    refuse: (error: VoiceBrowserError) => Promise.reject(refused(error)),
    signal: () => lifetime.signal,
    beginLifetime(): void {
      if (lifetime.signal.aborted) lifetime = new AbortController();
    },
    endLifetime: () => lifetime.abort(),
    get link(): SipLink | undefined {
      return link;
    },
    async openLink(transport: SessionTransport): Promise<SipLink> {
      const token = {};
      linkToken = token;
      const parts = await seams.linkParts();
      media ??= parts.mediaTransition;
      callTransition = parts.callTransition;
      reconcile ??= () => parts.reconcileReads(reads, { dispatch, call: () => callSlice });
      expiry ??= parts.createExpiryTimer(clock, dispatch);
      const opened: SipLink = await parts.openSipLink({
        transport,
        remoteAudio: options.remoteAudio,
        audioDevices: options.audioDevices,
        emit: (event) => (token === linkToken ? dispatch(event) : event.type === 'invite_received' && opened?.decline(event.invite.id)),
        clock,
      });
      return opened;
    },
    useLink(next: SipLink): void {
      link = next;
    },
    ignoreLinkEvents(): void {
      linkToken = undefined;
    },
    async closeLink(): Promise<void> {
      linkToken = undefined;
      await link?.close();
      link = undefined;
    },
    get origin(): CallOrigin | undefined {
      return origin;
    },
    startCall(next: CallOrigin, event: Extract<CallEvent, { type: 'attempt_started' }>): void {
      origin = next;
      dispatch(event);
    },
    recoverCall(found: BrowserCall, sessionId: string, routes?: CallRoutes): void {
      origin = { sessionId, routes };
      dispatch({ type: 'call_recovered', call: found });
    },
    hangup(): Promise<void> {
      const { attempt } = callSlice;
      if (attempt && attempt.phase !== 'admitted') {
        // createCall in flight or its answer lost: hang up when the call is named, and refuse a held INVITE now.
        dispatch({ type: 'hangup_deferred' });
        return Promise.resolve();
      }
      return hangupCall();
    },
  };
  const reads = createCallReads({ dispatch, call: () => callSlice, clock, routes });
  /** The call's reads: disconnect() waits on them for the call's end, and stops them. */
  return Object.assign(rt, { reads });
}
