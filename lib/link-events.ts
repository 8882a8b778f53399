import type { CallEffects } from './call-effects.js';
import type { InviteEffects } from './invite-effects.js';
import type { CallMilestone } from './call-milestones.js';
import type { ConnectionEvent } from './connection-machine.js';
import type { MediaStatus } from './media-status.js';
import type { IncomingInvite, SipEvents } from './sip-link.js';
import type { CallQuality } from './types.js';

/**
 * A SIP link's events, taken by the runtime: the machines (or, for audio, the status) decide what follows.
 * Part of the SIP chunk (sip-adapter.ts re-exports it): only a link has events.
 */

/** What the runtime gives a link's events to (runtime.ts). */
export interface LinkEventsHost {
  /** Whether this link's events still count: an older link's (before a renewal) or a closed one's do not. */
  live(): boolean;
  effects: Pick<CallEffects, 'sessionEnded' | 'callChanged' | 'readNow'> & Pick<InviteEffects, 'receive'>;
  media: MediaStatus;
  connection(event: ConnectionEvent): void;
  milestone(name: CallMilestone, callId: string | undefined): void;
  quality(callId: string | undefined, quality: CallQuality): void;
}

/** The events one link reports, each dropped once the link no longer counts (an INVITE then refused). */
export function createLinkEvents({ live, effects, media, connection, milestone, quality }: LinkEventsHost): SipEvents {
  const events: SipEvents = {
    onInvite: effects.receive,
    onSessionEnded: effects.sessionEnded,
    onCallChanged: effects.callChanged,
    onMediaConnected: (callId) => {
      milestone('media_connected', callId);
      media.connected(callId);
    },
    onMediaReconnecting: media.reconnecting,
    onMediaFailed: (callId) => media.failed(callId) && effects.readNow(),
    onQuality: quality,
    onWarning: media.warning,
    onMicrophone: media.microphone,
    onAudio: media.audio,
    onReconnecting: () => connection({ type: 'socket_dropped' }),
    onReconnected: () => connection({ type: 'socket_restored' }),
    onDisconnected: (error) => connection({ type: 'link_gone', error: error.toStatus() }),
  };
  for (const [name, handle] of Object.entries(events) as Array<[keyof SipEvents, (...args: unknown[]) => void]>) {
    events[name] = ((...args: unknown[]) => (live() ? handle(...args) : name === 'onInvite' && (args[0] as IncomingInvite).reject())) as never;
  }
  return events;
}
