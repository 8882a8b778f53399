import type { CodecName } from './audio-codec.js';
import type { Impairment, MediaDirection } from './impairment.js';
import type { InboundCounts } from './inbound-rtp.js';

/**
 * What the simulator's end of a call's audio offers its call: the SDP it offers and answers, what it counts and
 * hears, and the faults of its network path. `createMediaPeer` makes one on werift.
 */

/** Packet/byte counters of one call, as seen by the simulator. */
export interface MediaCounts extends InboundCounts {
  /** RTP packets handed to werift for sending (tone + echo). */
  packetsToBrowser: number;
  /** The codec the call's audio runs on, as the answer agreed it: `pcmu` until then. */
  codec: CodecName;
}

/** Whose audio a tapped frame is: the page's (what the browser sent) or the far party's (what the simulator sent it). */
export type AudioParty = 'browser' | 'far';

/** What the media peer is doing: waiting for DTLS, playing the tone, echoing, sending a monitor's audio, or done. */
export type MediaPhase = 'idle' | 'tone' | 'echo' | 'monitor' | 'closed';

/** One simulated recipient audio endpoint backed by a werift RTCPeerConnection. */
export interface MediaPeer {
  /** Full non-trickle SDP offer: PCMU/8000 pt 0 + telephone-event/8000 pt 101 (0-16), sendrecv, candidates included. */
  createOffer(): Promise<string>;
  /** Apply the browser's SDP answer (ICE candidates not on this machine's addresses, or `.local`, are dropped first). */
  acceptAnswer(sdp: string): Promise<void>;
  /** Resolves when `pc.connectionState` is 'connected'; rejects on 'failed'/'closed' (or close()) before that. */
  readonly connected: Promise<void>;
  /** Current phase; 'closed' after close(). */
  readonly phase: MediaPhase;
  /** Snapshot of the counters. */
  counts(): MediaCounts;
  /**
   * Calls `listener` once per RFC 4733 DTMF event received (`'0'`-`'9'`, `'*'`, `'#'`, `'A'`-`'D'`), when its
   * first end packet arrives; the repeated end packets and retransmissions are not reported again.
   */
  onDtmf(listener: (digit: string) => void): void;
  /**
   * Answers the page's new offer in the dialog (a re-INVITE, RFC 3261 section 14). An offer with new ICE
   * credentials is an ICE restart (RFC 8839 section 4.4.1.1.1): new checks run on the same sockets, and DTLS and
   * SRTP carry on over the pair they find.
   */
  answerReoffer(sdp: string): Promise<{ sdp: string; iceRestart: boolean }>;
  /** Answers the offer of the page's 2xx to an offerless INVITE (RFC 3261 section 13.2.1), on a peer that made none. */
  answerOffer(sdp: string): Promise<string>;
  /** Holds the call (sends nothing to the page, as a service holding without music) or resumes it. */
  hold(held: boolean): void;
  /** Drops every datagram of the call's media path (RTP, DTLS, ICE checks), both ways, for `ms`. */
  blackhole(ms: number): void;
  /**
   * Impairs `direction` of the call's RTP and RTCP as `impairment` says from now on, its losses drawn from `seed`
   * (`undefined` lifts it); it holds across ICE restarts, and one set before the media connected applies once it does.
   */
  impair(direction: MediaDirection, impairment: Impairment | undefined, seed: number): void;
  /** Calls `listener` with every PCMU payload the page sent and every one sent to the page (tone and echo). */
  tap(listener: (party: AudioParty, payload: Buffer) => void): void;
  /** Sends one PCMU frame to the page (a monitor leg's audio); dropped before the media connected or after close. */
  send(payload: Buffer): void;
  /** Idempotent: stops the tone timer and closes the peer connection (sockets, timers). */
  close(): Promise<void>;
}
