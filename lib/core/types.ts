/**
 * Shapes the helper reads from the service and the status it exposes, with the state lists. The moves between
 * the states are listed beside them (`CONNECTION_TRANSITIONS`, `BROWSER_CALL_TRANSITIONS`, `AUDIO_TRANSITIONS`);
 * the options and the methods are `VoiceBrowserOptions` and `VoiceBrowser`.
 *
 * @remarks
 * Records from the service are kept whole: fields the helper does not know are preserved, never dropped.
 */

import type { BROWSER_CALL_STATES } from '../../contract/browser-call.js';

// The states are the service's (spec 3.2), written once where the page and the simulator both read them.
export { BROWSER_CALL_STATES, TERMINAL_CALL_STATES } from '../../contract/browser-call.js';

/** A browser call state; a state the service may add is carried as its string. */
export type BrowserCallState = (typeof BROWSER_CALL_STATES)[number] | (string & {});

/** A browser call as the service last returned it; unknown fields are kept. */
export interface BrowserCall {
  id: string;
  state: BrowserCallState;
  busy?: boolean;
  sessionId?: string;
  from?: string;
  to?: string;
  endReason?: string | null;
  error?: { code: string; message?: string } | null;
  [field: string]: unknown;
}

/** A browser session's metadata; unknown fields are kept. */
export interface BrowserSession {
  id: string;
  status?: string;
  expiresAt: string;
  externalSubject?: string;
  [field: string]: unknown;
}

/** Temporary SIP registration and ICE configuration of a session (never the persistent key). */
export interface SessionTransport {
  websocketUrl: string;
  sipUri: string;
  authorizationUsername: string;
  authorizationPassword: string;
  registrationExpiresSeconds?: number;
  iceServers: RTCIceServer[];
  /** `relay` when only TURN may carry the media (webrtc-pc); absent, any path. */
  iceTransportPolicy?: RTCIceTransportPolicy;
  expiresAt?: string;
  [field: string]: unknown;
}

/** What `startCall()` asks for ; the helper adds the session id. */
export interface CallInput {
  /** The caller id shown to the recipient, E.164. */
  from: string;
  /** The recipient, E.164. */
  to: string;
  /** The call's own limit from the answer; renewing the session never extends it. */
  maxDurationSeconds?: number;
  /** Honoured only when the account supports recording. */
  record?: boolean;
  /** At most 32 string pairs, keys 1-128 characters not starting with `$`, values ≤ 1,024, JSON ≤ 8,192 bytes. */
  customData?: Record<string, string>;
}

/** Whether the agent takes offered callers: `away` until they say `available`, and again after an offer they let ring out. */
export type Availability = 'available' | 'away';

/**
 * A queue's caller offered to this agent, ringing (the service's INVITE with `X-Call-Id`): `accept()` answers it,
 * `decline()` sends the caller on to the next agent. `queueId` is null until a read of the call said it;
 * `since` is when it began ringing (ms since the epoch, the page's clock).
 */
export interface Offer {
  callId: string;
  caller: string;
  queueId: string | null;
  since: number;
}

/**
 * Connection of the helper to the service:
 *
 * ```
 *                 connect()               registered
 *  disconnected ────────────▶ connecting ────────────▶ ready ◀──────────────┐ registered again
 *    ▲    │ recover() finds       │ failure                │ │ │             │        browser offline
 *    │    ▼ a session             ▼                        │ │ └─socket drop─▶ reconnecting ◀──────────▶ offline
 *    │  recovery_required    disconnected (error set)      │ │                  │          online       │
 *    │    │                                                │ └─session or registration expiry, or the   │
 *    │    │                                                │   credentials refused (from either) ─▶ expired
 *    │    └──disconnect()──┐                                │                   renew() while idle:
 *    └──── disconnecting ◀─┴──────────disconnect()──────────┘   ready / expired / offline ──▶ renewing ──▶ ready
 * ```
 * Only `ready` takes new calls. `reconnecting` tries again, with growing randomized waits, for as long as the
 * session is valid; `offline` is the same while the browser says it has no network (`navigator.onLine`), and it
 * registers straight from there when it can. `reconnecting`, `offline` and `expired` keep an accepted call
 * running to its own end.
 */
export type Connection = (typeof CONNECTION_STATES)[number];

/** Every {@link Connection} state, in the order the diagram above draws them. */
export const CONNECTION_STATES = ['disconnected', 'connecting', 'ready', 'reconnecting', 'offline', 'expired', 'renewing', 'disconnecting', 'recovery_required'] as const;

/**
 * The page's audio in a call (`status().audio`; the media machine draws its diagram): `none` before a call;
 * `connecting` until audio flows over the call's media path; `playing` once it does and the page's audio element
 * plays; `blocked` (it flows, but the autoplay policy holds the element); `reconnecting` (the path stopped and ICE
 * is being restarted in the same call); `held` (the far end put the call on hold, RFC 3264 section 8.4: no audio
 * is expected from either side until it takes the call off hold, and nothing is restarted meanwhile); `failed` (no audio path: audio never flowed, or the path was lost, and
 * every restart failed, while the call itself may still run at the service); `ended`.
 *
 * @remarks
 * Only audio proven to flow shows as `playing` or `blocked`: the media path connected (ICE and DTLS) and audio
 * packets arrived over it (or the far end sends none). The element plays an empty stream at once, so its word
 * alone proves nothing: a call whose media never flowed stays `connecting` until it does, or is `failed`.
 */
export type Audio = (typeof AUDIO_STATES)[number];

/** Every {@link Audio} state, in the order the diagram draws them. */
export const AUDIO_STATES = ['none', 'connecting', 'playing', 'blocked', 'reconnecting', 'held', 'failed', 'ended'] as const;

/** renew() only while idle, from a state that holds a session the helper can replace. */
export const RENEWABLE_CONNECTIONS: ReadonlySet<Connection> = new Set<Connection>(['ready', 'expired', 'offline']);

/** The attempt behind the current call: kept until a terminal read, so a retry reuses its key. */
export interface CallAttempt {
  idempotencyKey: string;
  input: CallInput;
  /**
   * `creating`: createCall in flight; `admitted`: the service named the call (its 202, or a read of the current
   * session found it); `outcome_unknown`: the answer was lost and no read has found the call yet.
   */
  phase: 'creating' | 'admitted' | 'outcome_unknown';
  /**
   * Set for `answerNext()`: the queue the caller is claimed from. Its `input` is then empty (`from` and `to` are
   * `''`): the caller is known once the dequeue answers, and its key is the helper's own.
   */
  queueId?: string;
  /** Set for `monitor()`: the call listened to. Its `input` is empty, as an `answerNext()`'s. */
  monitor?: string;
}

/** The last failure, as the page shows it: a stable `code` (README's table) and what to do next. */
export interface StatusError {
  code: string;
  message: string;
}

/** Everything the page needs to render, as one immutable snapshot. */
export interface VoiceBrowserStatus {
  connection: Connection;
  session: { id: string; expiresAt: string } | null;
  /** The call as last read from the service (every field it returned). */
  call: BrowserCall | null;
  attempt: CallAttempt | null;
  /** True from startCall() until a terminal read proves both legs stopped. */
  busy: boolean;
  /**
   * The page's audio ({@link Audio}): `none` before a call, `connecting` (no audio has flowed yet), `playing`,
   * `blocked` (autoplay policy), `reconnecting` (the media path stopped and ICE is being restarted in the same
   * call), `failed` (no audio path, though the call may run), `ended`. `playing` only once audio flowed.
   */
  audio: Audio;
  /** Outgoing audio muted (mute affects outgoing audio only); kept across calls until changed. */
  muted: boolean;
  /** What is wrong with the call's audio now (raised and cleared by themselves, from its statistics); empty outside a call. */
  warnings: readonly CallWarning[];
  error: StatusError | null;
  /** A queue's caller ringing this agent, until accepted, declined or withdrawn. */
  offer: Offer | null;
  /** What the server last said of the agent's availability for offers; null until it said (or without offers). */
  availability: Availability | null;
  /**
   * The current call is being recorded: true once the service answered `startRecording()`, false once it
   * answered `stopRecording()` or the call ended. A recording the service began by itself (`record: true`) is
   * not shown: only what the helper was told.
   */
  recording: boolean;
  /**
   * Which tab holds the phone (option `tabs`). `shared`: the tabs of the origin share one, held by the leader
   * (`leader` true in that tab only); `independent`: this tab holds its own (`leader` always true).
   */
  tabs: { mode: 'shared' | 'independent'; leader: boolean };
}

/**
 * A warning during a call: the call's media path (ICE and DTLS) not connected 3 s after it began, so no audio can
 * flow (`no_audio_path`); no audio from the far end for 3 s on a connected path (`no_inbound_audio`); the
 * microphone sending silence for 3 s while not muted (`silent_microphone`); inbound loss over 5 %
 * (`high_packet_loss`); a round trip over 400 ms (`high_rtt`).
 */
export type CallWarning = 'no_audio_path' | 'no_inbound_audio' | 'silent_microphone' | 'high_packet_loss' | 'high_rtt';

/**
 * How a connected call sounds, from the browser's WebRTC statistics: a sample every 2 s while its media flows.
 * A figure the browser does not (yet) report is `null`.
 */
export interface CallQuality {
  /** Media round trip (RTCP), else the ICE pair's; ms. */
  rttMs: number | null;
  /** Inbound interarrival jitter, ms. */
  jitterMs: number | null;
  /** Audio packets received and lost since the call's media began. */
  packetsReceived: number;
  packetsLost: number;
  /** Inbound loss over the last interval, percent; null when no packet was due. */
  lossPercent: number | null;
  packetsSent: number;
  /** Estimated mean opinion score, 1 to 4.5 (simplified ITU-T G.107 E-model): a guide, not a measurement. */
  mos: number | null;
  /** The inbound audio codec, e.g. `PCMU`. */
  codec: string | null;
  /**
   * The microphone's mean level over the interval, 0 to 1 (as webrtc-stats `audioLevel`; under 0.001, about
   * -60 dBov, is silence); null when the browser does not report it.
   */
  microphoneLevel: number | null;
  /**
   * The path the audio takes, from the pair in use: this browser's candidate type and the protocol it sends by,
   * `host/udp`, `srflx/udp`, `prflx/udp`, or through TURN `relay/udp`, `relay/tcp`, `relay/tls`; null before a
   * pair is chosen.
   */
  path: string | null;
}

/**
 * A milestone of connect or of a call, with the time since the operation started (`onTiming`); while a call's
 * media flows, a `call_quality` sample every 2 s carrying `quality`; `media_reconnecting` /
 * `media_reconnected` around an ICE restart; `warning_raised` / `warning_cleared` carrying `warning`; and
 * `microphone_replaced` (the microphone went away mid-call and the system's default took over) or
 * `microphone_lost` (none left: `microphone_unavailable` shows while the call goes on).
 */
export interface TimingEvent {
  name:
    | 'session_created'
    | 'registered'
    | 'call_admitted'
    | 'invite_received'
    | 'media_connected'
    | 'connected'
    | 'call_quality'
    | 'media_reconnecting'
    | 'media_reconnected'
    | 'warning_raised'
    | 'warning_cleared'
    | 'microphone_replaced'
    | 'microphone_lost'
    | 'ended';
  /** Call id, for call milestones. */
  callId?: string;
  at: number;
  /**
   * Milliseconds since connect(), renew() or startCall() began. Absent for the milestones of a call that
   * `recover()` found: it did not start in this page, so there is no start to count from.
   */
  sinceStartMs?: number;
  /** Present on `call_quality` events only. */
  quality?: CallQuality;
  /** Present on `warning_raised` and `warning_cleared` events only. */
  warning?: CallWarning;
}

