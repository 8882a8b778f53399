import { isTerminal, type CallEffect, type CallEvent, type CallSlice } from './call-machine.js';
import type { CallMilestone } from './call-milestones.js';
import type { CallReads } from './call-reads.js';
import type { Clock } from './clock.js';
import { toVoiceError } from './errors.js';
import type { Expectation } from './poller.js';
import type { IncomingInvite, SipLink } from './sip-link.js';
import type { BrowserCall, VoiceBackend, VoiceBrowserStatus } from './types.js';

/**
 * What the call machine's effects do (call-machine.ts decides them; the runtime hands them here in order):
 * read, answer or refuse an INVITE, post a hangup, close our half of an ended call's dialog. What SIP says about
 * the call's media is shown by media-status.ts and decides nothing (only a read ends a call).
 */

/** The runtime's parts that effects act on. */
export interface CallEffectsHost {
  backend: VoiceBackend;
  clock: Clock;
  /** Shows what no machine owns: the call's audio and warnings, and an error of a SIP action. */
  show(patch: Partial<Pick<VoiceBrowserStatus, 'audio' | 'warnings' | 'error'>>): void;
  audio(): VoiceBrowserStatus['audio'];
  reads: CallReads;
  call(): CallSlice;
  dispatch(event: CallEvent): void;
  /** The SIP link of the session now shown, if any. */
  link(): SipLink | undefined;
  /** Aborted by disconnect(). */
  signal(): AbortSignal;
  timing(name: CallMilestone, callId: string | undefined): void;
}

export type CallEffects = ReturnType<typeof createCallEffects>;

/** Creates the effects' runner; its closure holds the INVITEs and the one hangup request in flight. */
export function createCallEffects(host: CallEffectsHost) {
  const { backend, clock, reads, show } = host;
  /** The INVITE the call machine is deciding on, and the one it holds until the call is named. */
  let received: IncomingInvite | undefined;
  let held: IncomingInvite | undefined;
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
        return host.signal().aborted ? reads.stop() : reads.reconcile();
      case 'stop_polling':
        return reads.stop();
      case 'hang_up':
        void hangupCall().catch(() => undefined);
        return;
      case 'call_ended':
        return ended(effect.call);
      case 'answer_invite':
        return received && answer(received);
      case 'hold_invite':
        held = received;
        return;
      case 'reject_invite':
        return received?.reject();
      case 'answer_held':
      case 'reject_held':
        return releaseHeld(effect.type === 'answer_held');
      case 'report':
        return show({ error: effect.error });
    }
  }

  function ended(call: BrowserCall): void {
    host.timing('ended', call.id);
    // The service says both legs are down; make sure our half of the dialog is too.
    host.link()?.endSession();
    if (host.audio() !== 'none') show({ audio: 'ended', warnings: [] });
    reads.ended();
  }

  /** The change an answer or an in-dialog INFO/NOTIFY announces: the call leaves the state it had. */
  function stateLeft(): Expectation {
    const before = host.call().call?.state;
    return { shown: () => host.call().call?.state !== before };
  }

  function answer(invite: IncomingInvite): void {
    host.timing('invite_received', invite.callId);
    show({ audio: 'connecting' });
    invite.accept().then(
      () => reads.pollNow(stateLeft()),
      (error: unknown) => {
        // Withdrawn while we answered (a CANCEL crossed our 200 OK): the service gave the call up, and only
        // its read says how the call ended; there is nothing for the user to reconnect.
        if (!invite.withdrawn) {
          // SIP.js has already declined the INVITE; the service will end the call and a read will show it.
          show({ error: toVoiceError(error, 'connection_failed', 'the call could not be answered in the browser').toStatus() });
        }
        reads.pollNow(stateLeft());
      },
    );
  }

  /** One the service withdrew meanwhile (CANCEL, 487) is dropped: the call's read says what became of it. */
  function releaseHeld(answerIt: boolean): void {
    const invite = held;
    held = undefined;
    if (!invite) return;
    if (invite.withdrawn) reads.pollNow(stateLeft());
    else if (answerIt) answer(invite);
    else invite.reject();
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
      const { call: after } = await backend.hangupCall(call.id, { signal: host.signal() });
      host.dispatch({ type: 'call_read', call: after });
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
    /** An INVITE came: the call machine decides (`invite_received`), and its effects act on this one. */
    receive(invite: IncomingInvite): void {
      received = invite;
      host.dispatch({ type: 'invite_received', callId: invite.callId });
      received = undefined;
    },
    /** Our dialog is over: what the service shows next is the end (busy false), possibly after `ending`. */
    sessionEnded: () =>
      reads.pollNow({
        shown: () => {
          const call = host.call().call;
          return !!call && isTerminal(call);
        },
      }),
    /** The service signalled a change inside the dialog: read now, and again soon until the read shows it. */
    callChanged: () => reads.pollNow(stateLeft()),
    /** SIP speaks of the call now shown, still going at the service. */
    isCurrent,
    /** Read the call now (its audio failed: the service may have ended it). */
    readNow: () => reads.pollNow(),
  };
}
