import { isTerminal, type CallEffect, type CallEvent, type CallSlice } from './call-machine.js';
import type { CallMilestone } from './call-milestones.js';
import type { CallReads } from './call-reads.js';
import { toVoiceError } from './errors.js';
import type { Expectation } from './poller.js';
import type { CallRoutes } from './call-reads.js';
import type { SipLink } from './sip-link.js';
import type { BrowserCall, VoiceBrowserStatus } from './types.js';

/**
 * What the call machine's effects do (call-machine.ts decides them; the runtime hands them here in order):
 * read, post a hangup, close our half of an ended call's dialog; those that answer or refuse an INVITE come
 * with the SIP link (invite-effects.ts). What SIP says about
 * the call's media is shown by media-status.ts and decides nothing (only a read ends a call).
 */

/** The runtime's parts that effects act on. */
export interface CallEffectsHost {
  /** Shows what no machine owns: the call's audio and warnings, and an error of a SIP action. */
  show(patch: Partial<Pick<VoiceBrowserStatus, 'audio' | 'warnings' | 'error'>>): void;
  audio(): VoiceBrowserStatus['audio'];
  reads: CallReads;
  call(): CallSlice;
  dispatch(event: CallEvent): void;
  /** The current call's routes: a browser call's, or a queue's caller's. */
  routes(): CallRoutes;
  /** Starts the reads that look for a lost request's call (reconcile.ts, with the SIP chunk). */
  reconcile(): void;
  /** Runs an INVITE's effect; undefined before a SIP link brought any. */
  invites(): ((effect: InviteEffect) => void) | undefined;
  /** The SIP link of the session now shown, if any. */
  link(): SipLink | undefined;
  /** Aborted by disconnect(). */
  signal(): AbortSignal;
  timing(name: CallMilestone, callId: string | undefined): void;
}

export type CallEffects = ReturnType<typeof createCallEffects>;

/** The change an answer or an in-dialog INFO/NOTIFY announces: the call leaves the state it had. */
export function stateLeft(call: () => CallSlice): Expectation {
  const before = call().call?.state;
  return { shown: () => call().call?.state !== before };
}

/** The effects that act on an INVITE (invite-effects.ts, which comes with the SIP link). */
export type InviteEffect = Extract<CallEffect, { type: 'answer_invite' | 'hold_invite' | 'reject_invite' | 'answer_held' | 'reject_held' }>;

/** Creates the effects' runner; its closure holds the one hangup request in flight. */
export function createCallEffects(host: CallEffectsHost) {
  const { reads, show } = host;
  let hangingUp: Promise<void> | undefined;

  function isCurrent(callId: string | undefined): boolean {
    const call = host.call().call;
    return !!callId && call?.id === callId && !isTerminal(call);
  }

  function run(effect: CallEffect): void {
    switch (effect.type) {
      case 'start_polling':
        return host.signal().aborted ? reads.stop() : reads.poll(effect.callId);
      case 'start_reconciling':
        return host.signal().aborted ? reads.stop() : host.reconcile();
      case 'stop_polling':
        return reads.stop();
      case 'hang_up':
        void hangupCall().catch(() => undefined);
        return;
      case 'call_ended':
        return ended(effect.call);
      case 'report':
        return show({ error: effect.error });
      default:
        // Only a SIP link brings an INVITE, and with it the effects that answer one.
        return host.invites()?.(effect);
    }
  }

  function ended(call: BrowserCall): void {
    host.timing('ended', call.id);
    // The service says both legs are down; make sure our half of the dialog is too.
    host.link()?.endSession();
    if (host.audio() !== 'none') show({ audio: 'ended', warnings: [] });
    reads.ended();
  }

  /** hangup(): asks the service to end the call; with no call id yet, as soon as one is known (busy stays). */
  function hangup(): Promise<void> {
    const { attempt } = host.call();
    if (attempt && attempt.phase !== 'admitted') {
      // createCall in flight or its answer lost: hang up when the call is named, and refuse a held INVITE now.
      host.dispatch({ type: 'hangup_deferred' });
      return Promise.resolve();
    }
    return hangupCall();
  }

  /** The hang_up effect, and hangup() of a named call: one request at a time. */
  function hangupCall(): Promise<void> {
    const call = host.call().call;
    if (hangingUp) return hangingUp;
    if (!call || isTerminal(call)) return Promise.resolve();
    hangingUp = postHangup(call).finally(() => (hangingUp = undefined));
    return hangingUp;
  }

  async function postHangup(call: BrowserCall): Promise<void> {
    try {
      host.dispatch({ type: 'call_read', call: await host.routes().hangup(call.id, { signal: host.signal() }) });
    } catch (cause) {
      // The service did not take the hangup: end our leg by SIP BYE, which ends the call too.
      host.link()?.endSession();
      const error = toVoiceError(cause, 'cleanup_unknown', 'the hangup request failed; call hangup() again');
      show({ error: error.toStatus() });
      throw error;
    } finally {
      reads.pollNow();
    }
  }

  return {
    run,
    hangup,
    /** Our dialog is over: what the service shows next is the end (busy false), possibly after `ending`. */
    sessionEnded: () =>
      reads.pollNow({
        shown: () => {
          const call = host.call().call;
          return !!call && isTerminal(call);
        },
      }),
    /** The service signalled a change inside the dialog: read now, and again soon until the read shows it. */
    callChanged: () => reads.pollNow(stateLeft(host.call)),
    /** SIP speaks of the call now shown, still going at the service. */
    isCurrent,
    /** Read the call now (its audio failed: the service may have ended it). */
    readNow: () => reads.pollNow(),
  };
}
