import type { LegEnd } from '../sip/invite-dialog.js';
import type { MediaCounts } from '../media/media.js';
import type { BrowserCallState, GenericCallState } from '../service/model.js';

/**
 * What the simulator observed of one call beyond its record, for `GET /__sim/calls/:id` (docs/simulator.md): the states
 * it went through, the SIP and media milestones of its browser leg, and the DTMF it heard. A browser call's leg
 * is the INVITE that rings its page; a queued caller's is the INVITE each dequeue sends to the claiming agent.
 */

/** One DTMF digit the recipient heard, and how it was sent. */
export interface DtmfReceived {
  digit: string;
  method: 'rfc4733' | 'sip-info';
  at: string;
}

/** One state the call entered, and when. */
export interface StateEntered {
  state: BrowserCallState | GenericCallState;
  at: string;
}

/** What the simulator observed of a call, for `GET /__sim/calls/:id`. */
export interface CallFacts {
  /** Every state the call went through, oldest first, starting with `waiting_agent` (or `queued`). */
  history: StateEntered[];
  inviteSentAt: string | null;
  browserAnsweredAt: string | null;
  browserFinalStatus: number | null;
  mediaConnectedAt: string | null;
  /** When the SIP WebSocket carrying the browser leg closed while the leg was up. */
  transportLostAt: string | null;
  /**
   * How the service's BYE or CANCEL of the browser leg went, when the service ended it: `answered` by the page,
   * `unreachable` (its socket gone and, without RFC 5626 outbound, no other way to it), `timeout`, or `already`
   * ended by the page; null while the leg is up or when the page ended it.
   */
  browserLegEnd: LegEnd | null;
  media: MediaCounts | null;
  dtmf: DtmfReceived[];
  /** Re-INVITEs the page sent in the call's dialog, and how many of them restarted ICE (new ICE credentials). */
  reinvites: number;
  iceRestarts: number;
  /** The audio formats the page's last re-INVITE offered, by `rtpmap` name in its order; null before any. */
  lastReofferFormats: string[] | null;
  /** The Opus `a=fmtp` parameters of the page's last re-INVITE (RFC 7587 section 6.1); null before any, or without Opus. */
  lastReofferOpus: string | null;
  /**
   * Requests the service sent in the dialog of its own accord (an edge's PRACKs and session refreshes, a hold) and
   * the page's final status code to each, oldest first.
   */
  edgeRequests: Array<{ method: string; statusCode: number; at: string }>;
}

/** The facts of a call just placed: its first state, nothing observed yet. */
export function initialFacts(call: { state: StateEntered['state']; createdAt: string }): CallFacts {
  return {
    history: [{ state: call.state, at: call.createdAt }],
    inviteSentAt: null,
    browserAnsweredAt: null,
    browserFinalStatus: null,
    mediaConnectedAt: null,
    transportLostAt: null,
    browserLegEnd: null,
    media: null,
    dtmf: [],
    reinvites: 0,
    iceRestarts: 0,
    lastReofferFormats: null,
    lastReofferOpus: null,
    edgeRequests: [],
  };
}
