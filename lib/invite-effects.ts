import { stateLeft, type InviteEffect } from './call-effects.js';
import type { CallEvent, CallSlice } from './call-machine.js';
import type { CallMilestone } from './call-milestones.js';
import type { CallReads } from './call-reads.js';
import { toVoiceError } from './errors.js';
import type { IncomingInvite } from './sip-link.js';
import type { VoiceBrowserStatus } from './types.js';

/**
 * The effects that answer, hold or refuse an INVITE (call-machine.ts decides which; DESIGN.md: only the INVITE
 * naming the attempt's call is answered, and one that comes before the call is named is held).
 *
 * @remarks
 * Part of the SIP chunk (sip-adapter.ts re-exports it): only a SIP link brings an INVITE, so a page that only
 * recovers or cleans up never downloads them. The runtime makes them with its first link.
 */

/** What the INVITE effects act on: the call machine, the call's reads, the status and the milestones. */
export interface InviteEffectsHost {
  call(): CallSlice;
  dispatch(event: CallEvent): void;
  reads: Pick<CallReads, 'pollNow'>;
  show(patch: Partial<Pick<VoiceBrowserStatus, 'audio' | 'error'>>): void;
  timing(name: CallMilestone, callId: string | undefined): void;
}

/** Creates them; the closure holds the INVITE being decided on and the one held until its call is named. */
export function createInviteEffects(host: InviteEffectsHost) {
  const { reads, show } = host;
  let received: IncomingInvite | undefined;
  let held: IncomingInvite | undefined;

  function answer(invite: IncomingInvite): void {
    host.timing('invite_received', invite.callId);
    show({ audio: 'connecting' });
    invite.accept().then(
      () => reads.pollNow(stateLeft(host.call)),
      (error: unknown) => {
        // Withdrawn while we answered (a CANCEL crossed our 200 OK): the service gave the call up, and only
        // its read says how the call ended; there is nothing for the user to reconnect.
        if (!invite.withdrawn) {
          // SIP.js has already declined the INVITE; the service will end the call and a read will show it.
          show({ error: toVoiceError(error, 'connection_failed', 'the call could not be answered in the browser').toStatus() });
        }
        reads.pollNow(stateLeft(host.call));
      },
    );
  }

  /** One the service withdrew meanwhile (CANCEL, 487) is dropped: the call's read says what became of it. */
  function releaseHeld(answerIt: boolean): void {
    const invite = held;
    held = undefined;
    if (!invite) return;
    if (invite.withdrawn) reads.pollNow(stateLeft(host.call));
    else if (answerIt) answer(invite);
    else invite.reject();
  }

  return {
    /** An INVITE came: the call machine decides (`invite_received`), and its effects act on this one. */
    receive(invite: IncomingInvite): void {
      received = invite;
      host.dispatch({ type: 'invite_received', callId: invite.callId });
      received = undefined;
    },
    run(effect: InviteEffect): void {
      switch (effect.type) {
        case 'answer_invite':
          return received && answer(received);
        case 'hold_invite':
          held = received;
          return;
        case 'reject_invite':
          return received?.reject();
        default:
          return releaseHeld(effect.type === 'answer_held');
      }
    },
  };
}

export type InviteEffects = ReturnType<typeof createInviteEffects>;
