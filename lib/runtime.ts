import { createCallEffects } from './call-effects.js';
import { idleCall, transition as callTransition, type CallEvent, type CallSlice } from './call-machine.js';
import { createCallMilestones, type CallMilestone } from './call-milestones.js';
import { browserCallRoutes, createCallReads, type CallRoutes } from './call-reads.js';
import type { Clock } from './clock.js';
import { disconnected, transition as connectionTransition, type ConnectionEvent, type ConnectionSlice } from './connection-machine.js';
import type { VoiceBrowserError } from './errors.js';
import type { createExpiryTimer, ExpiryTimer } from './expiry-timer.js';
import type { createInviteEffects, InviteEffects } from './invite-effects.js';
import type { claimedCaller } from './queue-call.js';
import type { reconcileReads } from './reconcile.js';
import type { createLinkEvents } from './link-events.js';
import type { createMediaStatus, MediaStatus } from './media-status.js';
import type { SipLink, SipLinkOptions } from './sip-link.js';
import { createStatusStore } from './status-store.js';
import type { BrowserCall, SessionTransport, VoiceBackend, VoiceBrowserOptions, VoiceBrowserStatus } from './types.js';

/**
 * The helper's runtime: the one owner of the status store and of both machines' states. Every change is an
 * event: `connection(event)` and `call(event)` run the pure transition (connection-machine.ts,
 * call-machine.ts), commit the state, notify, then run the effects (STYLE: xstate's idea without xstate;
 * the call's effects are in call-effects.ts). It holds what the effects act on: the SIP link, whose events
 * it turns into events of the two machines, the connection's lifetime and the expiry timer. The operations
 * (connection-control.ts, call-control.ts) send events here and read state; neither calls into the other.
 */

/**
 * What the runtime is given besides the page's options: its clock, and the SIP chunk's parts that open a link
 * and take what it says, loaded on the first connect() (voice-browser.ts loads the chunk, or a test's fakes).
 */
export interface RuntimeSeams {
  clock: Clock;
  linkParts(): Promise<LinkParts>;
}

/** The SIP chunk's parts the runtime uses: the link (sip-adapter.ts), and what takes what it says (sip-chunk.ts). */
export interface LinkParts {
  openSipLink(options: SipLinkOptions): Promise<SipLink>;
  createInviteEffects: typeof createInviteEffects;
  claimedCaller: typeof claimedCaller;
  reconcileReads: typeof reconcileReads;
  createExpiryTimer: typeof createExpiryTimer;
  createMediaStatus: typeof createMediaStatus;
  createLinkEvents: typeof createLinkEvents;
}

/**
 * Where the current call came from: its session, when this page started it (unset: recover() found it), and,
 * for a caller claimed from a queue, the routes it is read and hung up by (queue-call.ts); unset, a browser
 * call's.
 */
export interface CallOrigin {
  sessionId: string;
  startedAt?: number;
  routes?: CallRoutes;
}

export type Runtime = ReturnType<typeof createRuntime>;

/** How many past calls the helper remembers (for reconciliation and once-only milestones). */
const RECENT_CALLS = 16;

/**
 * Creates the runtime. A factory whose closure is the runtime's state: each function in it is short, and
 * the object it returns is everything the operations may touch.
 */
export function createRuntime(options: VoiceBrowserOptions, seams: RuntimeSeams) {
  const backend: VoiceBackend = options.backend;
  const { clock } = seams;
  const store = createStatusStore(options, clock);
  let connectionSlice: ConnectionSlice = disconnected;
  let callSlice: CallSlice = idleCall;
  /** Aborted by disconnect(): requests and reads of this connection's lifetime stop with it. */
  let lifetime = new AbortController();
  let link: SipLink | undefined;
  /** The link whose events count; events of an older link (before a renewal) are ignored. */
  let linkToken: object | undefined;
  let origin: CallOrigin | undefined;
  let mediaStatus: MediaStatus | undefined;
  let invites: InviteEffects | undefined;
  /** Only startCall() and answerNext() lose an answer, and both come with the SIP chunk that brings this. */
  let reconcile: (() => void) | undefined;
  const milestones = createCallMilestones(store.timing, RECENT_CALLS);
  const callTiming = (name: CallMilestone, callId: string | undefined) => milestones.report(name, callId, origin?.startedAt);
  /** The session's expiry timer: only a registered session is watched, so it comes with the SIP chunk. */
  let expiry: ExpiryTimer | undefined;
  const browserRoutes = browserCallRoutes(backend, () => origin?.sessionId, milestones.seen);
  const routes = () => origin?.routes ?? browserRoutes;
  const reads = createCallReads({ clock, call: () => callSlice, dispatch: call, routes });
  const effects = createCallEffects({
    reads,
    show: store.commit,
    audio: () => store.get().audio,
    call: () => callSlice,
    dispatch: call,
    routes,
    invites: () => invites?.run,
    reconcile: () => reconcile?.(),
    link: () => link,
    signal: () => lifetime.signal,
    timing: callTiming,
  });

  /** Every connection change goes through here (STYLE: one place to commit): the machine decides, this commits. */
  function connection(event: ConnectionEvent): void {
    const [next, produced] = connectionTransition(connectionSlice, event);
    if (next === connectionSlice) return;
    connectionSlice = next;
    const reported = produced.find((effect) => effect.type === 'report');
    store.commit({ connection: next.connection, session: next.session, ...(reported ? { error: reported.error } : {}) });
    for (const effect of produced) {
      if (effect.type === 'watch_expiry') expiry?.watch(effect.expiresAt);
      if (effect.type === 'stop_expiry') expiry?.stop();
    }
  }

  /** Every call change goes through here, as connection changes go through `connection`. */
  function call(event: CallEvent): void {
    const [next, produced] = callTransition(callSlice, event);
    const before = callSlice;
    callSlice = next;
    if (next !== before) {
      if (next.call) milestones.remember(next.call.id);
      // A new attempt clears what an earlier action left shown (a refused input, say): the user moved on.
      const showError = next.error !== before.error || event.type === 'attempt_started';
      store.commit({ attempt: next.attempt, call: next.call, busy: next.busy, ...(showError ? { error: next.error } : {}) });
      if ((event.type === 'attempt_admitted' || event.type === 'attempt_reconciled') && next.call) callTiming('call_admitted', next.call.id);
      if (next.call?.state === 'connected') callTiming('connected', next.call.id);
    }
    for (const effect of produced) effects.run(effect);
  }

  return {
    backend,
    clock,
    connection,
    call,
    get connectionState(): ConnectionSlice {
      return connectionSlice;
    },
    get callState(): CallSlice {
      return callSlice;
    },
    status: (): VoiceBrowserStatus => store.get(),
    timing: store.timing,
    /** Shows what no machine owns: the mute wish, or the error of a request that changed no state. */
    show: store.commit as (patch: Partial<Pick<VoiceBrowserStatus, 'muted' | 'error'>>) => void,
    fail(error: VoiceBrowserError): Promise<never> {
      store.commit({ error: error.toStatus() });
      return Promise.reject(error);
    },
    /** The lifetime of this connection: aborted by disconnect(), begun again by connect() and recover(). */
    signal: () => lifetime.signal,
    beginLifetime(): void {
      if (lifetime.signal.aborted) lifetime = new AbortController();
    },
    endLifetime: () => lifetime.abort(),
    get link(): SipLink | undefined {
      return link;
    },
    /** Opens a link whose events count from now on (an older link's are ignored from here). */
    async openLink(transport: SessionTransport): Promise<SipLink> {
      const token = {};
      linkToken = token;
      const parts = await seams.linkParts();
      const media = (mediaStatus ??= parts.createMediaStatus({
        status: store.get,
        commit: store.commit,
        timing: (name, callId, extra) => store.timing(name, origin?.startedAt, callId, extra),
        isCurrent: effects.isCurrent,
      }));
      invites ??= parts.createInviteEffects({ call: () => callSlice, dispatch: call, reads, show: store.commit, timing: callTiming });
      reconcile ??= () => parts.reconcileReads(reads, { call: () => callSlice, dispatch: call });
      expiry ??= parts.createExpiryTimer(clock, () =>
        connection({ type: 'session_expired', error: { code: 'browser_session_unavailable', message: 'the session expired; renew() it while idle to take calls again' } }),
      );
      const events = parts.createLinkEvents({
        live: () => token === linkToken,
        effects: { ...effects, receive: invites.receive },
        media,
        connection,
        milestone: callTiming,
        quality: (callId, quality) => store.timing('call_quality', origin?.startedAt, callId, { quality }),
      });
      return parts.openSipLink({ transport, remoteAudio: options.remoteAudio, audioDevices: options.audioDevices, events, clock });
    },
    /** The registered link of the session now shown. */
    useLink(next: SipLink): void {
      link = next;
    },
    /** From now on no link's events count (a link that failed to register). */
    ignoreLinkEvents(): void {
      linkToken = undefined;
    },
    /** Unregisters and closes the link; its events stop counting at once. */
    async closeLink(): Promise<void> {
      linkToken = undefined;
      await link?.close();
      link = undefined;
    },
    get origin(): CallOrigin | undefined {
      return origin;
    },
    /** A call starts on `sessionId` (startCall(); a retry keeps the first start's time). */
    startCall(next: CallOrigin, event: Extract<CallEvent, { type: 'attempt_started' }>): void {
      origin = next;
      call(event);
    },
    /**
     * A call recover() found: shown and polled (on its own routes, for a caller claimed from a queue), its
     * milestones untimed (it did not start in this page).
     */
    recoverCall(found: BrowserCall, sessionId: string, routes?: CallRoutes): void {
      origin = { sessionId, routes };
      call({ type: 'call_recovered', call: found });
    },
    /**
     * A queue's caller still bridged to this agent, with its routes, if a read finds one. They come with the SIP
     * chunk, which a desk's page has loaded already to watch its queues.
     */
    claimedCaller: () => seams.linkParts().then((parts) => parts.claimedCaller(backend, lifetime.signal)),
    /** Asks the service to end the call; with no call id yet, as soon as one is known (busy stays). */
    hangup: effects.hangup,
    waitForCallEnd: reads.waitForEnd,
    proveCallEnded: reads.proveEnded,
    /** disconnect() is done with the call: no read or timer of it is left, a held INVITE is refused. */
    stopCall(): void {
      call({ type: 'reads_stopped' });
      reads.ended();
    },
  };
}
