import type { Availability, BrowserCall, CallInput, CallQuality, TimingEvent, VoiceBrowserStatus } from './types.js';
import type { VoiceBackend } from './backend-types.js';
import type { HelperMethod } from './helper-methods.js';

/**
 * The helper's options and methods, and what they hand back beside the status: the report of its setup test
 * (`preflight()`) and the callers waiting in the queues (`watchQueues()`).
 */

/** The helper's methods. Each failure rejects with a {@link VoiceBrowserError} and is also shown in `status().error`. */
export interface VoiceBrowser {
  /**
   * On a fresh helper (after a reload), reads the user's current session and call. A session found sets
   * `connection` to `recovery_required`: its call is shown and polled, and `hangup()` and `disconnect()` clean
   * up; audio and credentials are not restored, and `connect()` is refused until `disconnect()`.
   */
  recover(): Promise<VoiceBrowserStatus>;
  /** Creates a browser session, loads SIP.js and registers; resolves when `connection` is `ready`. */
  connect(): Promise<void>;
  /**
   * Hangs up, waits for a terminal read, unregisters, releases the microphone and ends the session; `busy`
   * turns false only when a read after that end proves no call of the session runs. Unproven, it
   * rejects `cleanup_unknown` with `busy` still true: call it again, or `recover()` in a later page.
   */
  disconnect(): Promise<void>;
  /**
   * Asks the server to place a call; resolves with the admitted call (`202`: not yet an answer).
   * Retrying after `call_outcome_unknown` with the same `idempotencyKey` and input returns the original call.
   */
  startCall(input: CallInput, options: { idempotencyKey: string }): Promise<BrowserCall>;
  /**
   * Support desks: claims the next caller waiting in `queueId` for this user's agent and takes the call as its
   * own (only the INVITE naming that call is answered), then shows it as `status().call` until a terminal read,
   * with hangup(), mute() and sendDtmf(). Resolves with the claimed call. `queue_empty` when nobody waits; a lost
   * answer rejects `dequeue_outcome_unknown` and is never retried: reads find the call if there is one.
   */
  answerNext(queueId: string): Promise<BrowserCall>;
  /**
   * Offers: says whether this user's agent takes callers the server offers (`backend.setAvailability`);
   * `status().availability` shows what the server answered. Works before connect() too; the server offers
   * callers only to an agent whose page is connected.
   */
  setAvailability(availability: Availability): Promise<void>;
  /**
   * Answers the offered caller ringing now (`status().offer`): a read of the call proves it is this agent's,
   * then the call shows as `status().call` as after answerNext(). `no_active_call` when nothing rings.
   */
  accept(): Promise<BrowserCall>;
  /** Refuses the offered caller ringing now: the service offers them to the next agent. `no_active_call` when nothing rings. */
  decline(): Promise<void>;
  /**
   * Supervisors: listens in on call `callId` (one of their agents'; `backend.monitorCall`). The service rings
   * this page with a monitor leg, answered listen-only: no microphone is opened and nothing is sent. The leg
   * shows as `status().call` (its `kind` `monitor`, `monitoredCallId`) with `status().attempt.monitor` set,
   * as a call does (busy, audio, hangup() to leave it), and ends with the call listened to. Resolves with the
   * leg. Refused as `startCall()` is while busy; a lost answer rejects `monitor_outcome_unknown`, and reads of
   * the user's calls find the leg if one was made.
   */
  monitor(callId: string): Promise<BrowserCall>;
  /**
   * Records the current call (`backend.startRecording`); `status().recording` turns true once the service
   * answered. `no_active_call` without a call in progress of this page's own (a monitor leg is not).
   */
  startRecording(): Promise<void>;
  /** Stops the recording `startRecording()` began; `status().recording` turns false once the service answered. */
  stopRecording(): Promise<void>;
  /**
   * Support desks: `listener` gets the callers waiting in the user's queues, oldest first, now and on every
   * change (the backend's `queueEventsUrl`, a stream that reconnects by itself and is never polled). Returns the
   * function that stops it.
   */
  watchQueues(listener: (callers: readonly QueueCaller[]) => void): () => void;
  /** Asks the service to end the call; `busy` stays true until a terminal read. */
  hangup(): Promise<void>;
  /** Mutes (true) or unmutes the outgoing audio; the far end keeps sending, and you keep hearing it. */
  mute(muted: boolean): void;
  /** Sends one DTMF digit (`0-9 * # A-D`) on the answered call: RFC 4733 when negotiated, else SIP INFO. */
  sendDtmf(digit: string): Promise<void>;
  /** Replaces the session with a new one (fresh credentials and expiry); only while idle. */
  renew(): Promise<void>;
  /** Plays the call's audio after the browser blocked it (`audio_playback_blocked`); call it from a click. */
  resumeAudio(): Promise<void>;
  /** The current status snapshot (deeply frozen). */
  status(): VoiceBrowserStatus;
  /**
   * On a fresh helper (before `connect()`), tests the setup in under 10 s: the microphone, the connection to
   * the voice service, and the audio of a short call to `call.to` (the simulator's `+12025550100` echoes), each
   * `ok`, `warning` or `failed` with its figures and advice. It runs on a session and call of its own, which it
   * ends before resolving: nothing is left (session, call, socket, timer, microphone), and this helper's status
   * does not change. `connect()` and `recover()` called meanwhile wait for it; a second `preflight()` joins it.
   */
  preflight(call: CallInput): Promise<PreflightReport>;
  /**
   * For a page that builds another helper (say, on other devices: spec 4.9 fixes them per helper): disconnects
   * what this tab holds and, with shared tabs, leaves them (another tab then holds the phone). Drop the helper
   * after.
   */
  destroy(): Promise<void>;
}

/** How a part of the setup did in `preflight()`: `skipped` when a part it needs failed first. */
export type PreflightStatus = 'ok' | 'warning' | 'failed' | 'skipped';

/** One part of a `preflight()` report: its status, and what is wrong and what to do when it is not `ok`. */
export interface PreflightCheck {
  status: PreflightStatus;
  /**
   * Why it is not `ok`, stable to switch on: a {@link VoiceErrorCode} for a failure, or `silent_microphone`,
   * `slow_signalling`, `media_failed` (no audio in the test call), `high_packet_loss`, `high_rtt`, `high_jitter`;
   * null when `ok` or `skipped`.
   */
  code: string | null;
  /** What the user can do about it, in words a page can show; null when `ok`. */
  advice: string | null;
}

/**
 * `preflight()`'s verdict: the worst of its three parts, each with its figures (null when not measured).
 *
 * @remarks
 * `microphone`: it opens, and its level while it sent audio in the test call (0 to 1, as `audioLevel`).
 * `signalling`: the server's answer with a session, then opening the WebSocket and registering (round trips).
 * `media`: a short call to the number named: from its INVITE to media flowing (ICE and DTLS), then a sample of
 * its statistics as in `call_quality`.
 */
export interface PreflightReport {
  verdict: 'ok' | 'warning' | 'failed';
  microphone: PreflightCheck & { level: number | null };
  signalling: PreflightCheck & { sessionMs: number | null; registrationMs: number | null };
  media: PreflightCheck & Pick<CallQuality, 'rttMs' | 'jitterMs' | 'lossPercent' | 'mos'> & { setupMs: number | null };
  /** From the call of `preflight()` to its verdict, cleanup included. */
  durationMs: number;
}

/** A caller waiting in a queue, as `watchQueues()` lists them. */
export interface QueueCaller {
  callId: string;
  queueId: string;
  /** The caller's number, E.164. */
  from: string;
  /** The number they dialled, E.164. */
  to: string;
  /** When they began to wait (ISO 8601), for a wait time. */
  since: string;
}

/** `createVoiceBrowser()`'s options. */
export interface VoiceBrowserOptions {
  /** The six callbacks to your server; `createFetchBackend()` speaks to our proxy. */
  backend: VoiceBackend;
  /** Where the remote party's audio plays. */
  remoteAudio?: HTMLAudioElement;
  /** Fixed for the helper's life. */
  audioDevices?: { microphoneId?: string; speakerId?: string };
  /** Every status change, as a new frozen snapshot. */
  onStatus?(status: VoiceBrowserStatus): void;
  /** Milestones of connect and of each call, and call quality samples. */
  onTiming?(event: TimingEvent): void;
  /**
   * `shared` (default): the tabs of this origin share one phone. One tab, the leader, holds the session, the
   * registration, the microphone and the audio; every tab shows its status, and a method called in any tab runs
   * there. `independent`: each tab is a phone of its own, and a second tab's `connect()` supersedes the first's
   * session. Where Web Locks or BroadcastChannel are missing, tabs are independent; `status().tabs` says which.
   */
  tabs?: 'shared' | 'independent';
  /**
   * Asks the browser to confirm leaving the page while its tab holds a call's audio: a reload or close ends that
   * audio for good (spec 4.9: it is never reattached). Default true.
   */
  closeProtection?: boolean;
  /**
   * Offered callers (`status().offer`): the page rings them with a tone of its own on the chosen speaker, and
   * declines one left unanswered for `ringMs` (default 15 s, under the service's 20 s), saying the agent `away`.
   * With `notify` and the page's permission, a hidden page also raises a desktop notification.
   */
  offers?: { ringMs?: number; notify?: boolean };
}

/** True only when the lists name every method of the helper and nothing else (the compiler refuses the line below otherwise). */
export type HelperMethodsListed = [Exclude<keyof VoiceBrowser, HelperMethod> | Exclude<HelperMethod, keyof VoiceBrowser>] extends [never] ? true : never;
const listed: HelperMethodsListed = true;
void listed;
