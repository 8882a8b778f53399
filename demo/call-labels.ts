import { canRetryCall, type BrowserCall, type CallQuality, type CallWarning, type VoiceBrowserStatus } from 'voice-browser';
import { connectionLabel, isCleanupOnly } from './connection-labels.js';

/**
 * The call's words and the controls the call card offers, as pure functions (tested directly in
 * the demo's unit tests). Whether the helper takes startCall() or sendDtmf() now is the library's rule
 * (canCall, canRetryCall, canSendDtmf), not restated here.
 */

/** The call button says when it retries the same attempt rather than starting a new one. */
export function callButtonLabel(status: VoiceBrowserStatus): string {
  return canRetryCall(status) ? 'Retry call' : 'Call';
}

/**
 * Hang up is offered for a call the service named, and not twice while it ends. The helper refuses no
 * hangup(): before the call is named it hangs up once it is, and on an ended call it does nothing.
 */
export function canHangUp(status: VoiceBrowserStatus): boolean {
  return status.busy && status.call !== null && status.call.state !== 'ending';
}

/** The keypad's keys row by row, as on a 16-key telephone pad: A-D in the fourth column (spec 4.9: exactly these). */
export const KEYPAD_DIGITS: readonly string[] = ['1', '2', '3', 'A', '4', '5', '6', 'B', '7', '8', '9', 'C', '*', '0', '#', 'D'];

/** Accessible name of a keypad key: "Dial 5", "Dial *". */
export function dialName(digit: string): string {
  return `Dial ${digit}`;
}

/** Each end reason the service gives, in words. */
const END_REASONS: Readonly<Record<string, string>> = {
  api_hangup: 'you hung up',
  agent_hangup: 'this page hung up',
  recipient_hangup: 'the other side hung up',
  recipient_busy: 'the number was busy',
  recipient_failed: "the recipient's leg failed",
  no_answer: 'nobody answered',
  max_duration: 'the call reached its time limit',
  session_ended: 'the session ended',
  agent_rejected: 'this page declined the call',
  agent_no_answer: 'this page did not answer',
  agent_unreachable: 'this page was not registered',
  connection_lost: "the connection to this page's audio was lost",
  media_failed: 'the audio could not start',
  compliance_blocked: 'the number is blocked for compliance',
  outcome_resolved: 'the unknown outcome was resolved',
  invite_withdrawn: 'the service withdrew the call before this page answered',
  claimed_elsewhere: 'another agent took the caller',
};

/** The error codes a failed call carries, in words (the reason usually says the rest). */
const CALL_ERRORS: Readonly<Record<string, string>> = {
  provider_error: 'the voice provider failed',
};

/** A code nobody put in words yet, made readable rather than shown raw: `carrier_gone` → "carrier gone". */
const plain = (code: string) => code.replace(/_/g, ' ');

/**
 * Why a claimed caller is no longer this page's without an `endReason`: back in its queue (the service's own
 * state, `queued` in spec 3.1, kept as `serviceState`) once the page did not answer in time.
 */
const BACK_IN_QUEUE = 'this page did not answer, the caller is back in the queue';

/** Why a call ended, in words, from its `endReason` and `error`: never a raw code. */
export function endLabel(call: BrowserCall | null): string | null {
  if (!call || (call.state !== 'ended' && call.state !== 'failed')) return null;
  const requeued = call.serviceState === 'queued' ? BACK_IN_QUEUE : null;
  const reason = call.endReason ? (END_REASONS[call.endReason] ?? plain(call.endReason)) : requeued;
  const code = call.error?.code;
  // An error that only repeats the reason (connection_lost, invite_withdrawn, ...) says nothing more.
  const error = code && code !== call.endReason ? (CALL_ERRORS[code] ?? END_REASONS[code] ?? plain(code)) : null;
  return [call.state === 'failed' ? 'Failed' : 'Ended', [reason, error].filter(Boolean).join(', ')].filter(Boolean).join(': ');
}

/** Where a session `recover()` found comes from: this tab before a reload, or another visit or tab. */
export type RecoveredFrom = 'reload' | 'elsewhere';

/**
 * The words over a session `recover()` found, true at every moment: while its call runs, once that call has
 * ended, and when there was none; null when nothing was recovered.
 */
export function recoveryLabel(status: VoiceBrowserStatus, from: RecoveredFrom): string | null {
  if (status.connection !== 'recovery_required') return null;
  const where = from === 'reload' ? 'from before this page was reloaded' : 'from another visit or tab';
  if (status.call && status.busy) {
    return `A call ${where} is still on. Its audio cannot come back to this page: hang up, then end the session and connect again.`;
  }
  if (status.call) return `The call ${where} is over (${endLabel(status.call) ?? 'ended'}). End the session, then connect again.`;
  return `A session ${where} is still open. End it, then connect again.`;
}

/**
 * A call the service marked `outcome_unknown` in words (spec 3.2): not an end, so the call stays busy and no
 * new call starts until a read proves how it went; null for any other state.
 */
export function unknownOutcomeLabel(call: BrowserCall | null): string | null {
  if (call?.state !== 'outcome_unknown') return null;
  return 'Outcome unknown: the service does not know yet how this call went. It stays busy, with no new call, until the service resolves it; Hang up asks it to end the call.';
}

/** A call's duration as m:ss (h:mm:ss past an hour); an em dash before the call is connected. */
export function durationLabel(seconds: number | null): string {
  if (seconds === null) return '—';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A call quality sample in words: "rtt 2 ms, jitter 1.2 ms, loss 0 %, MOS 4.4, PCMU, 250 packets in, 251 out, via host/udp". */
export function qualityLabel(quality: CallQuality): string {
  const figure = (value: number | null, unit: string) => (value === null ? '—' : `${value}${unit}`);
  return [
    `rtt ${figure(quality.rttMs, ' ms')}`,
    `jitter ${figure(quality.jitterMs, ' ms')}`,
    `loss ${figure(quality.lossPercent, ' %')}`,
    `MOS ${figure(quality.mos, '')}`,
    quality.codec ?? 'codec —',
    `${quality.packetsReceived} packets in, ${quality.packetsSent} out`,
    // The path only once a pair is chosen: `via relay/tls` says TURN over TLS carries the call.
    ...(quality.path ? [`via ${quality.path}`] : []),
  ].join(', ');
}

/** Names a queue by its id: the queue's name from the page's list, else the id itself. */
export type QueueNamer = (queueId: string) => string;

const byId: QueueNamer = (queueId) => queueId;

/** The queue an inbound call was claimed from (answerNext(): `queueId` set), or null for a call this page placed. */
export function inboundQueueId(call: BrowserCall | null): string | null {
  return typeof call?.queueId === 'string' && call.queueId !== '' ? call.queueId : null;
}

/** An inbound caller's call in words while it runs: from which queue, then who; null once it is no longer running. */
function inboundWords(call: BrowserCall, queue: string): string | null {
  switch (call.state) {
    case 'waiting_agent':
    case 'dialing_recipient':
      return `Caller from the ${queue} queue: connecting this page`;
    case 'connected':
      return `Connected to ${call.from ?? 'the caller'} from the ${queue} queue`;
    default:
      return null;
  }
}

/** What a call's state means for the person on the page, in words. */
function callStateWords(call: BrowserCall, nameOf: QueueNamer): string {
  const queueId = inboundQueueId(call);
  const inbound = queueId === null ? null : inboundWords(call, nameOf(queueId));
  if (inbound) return inbound;
  const to = call.to ?? 'the number';
  switch (call.state) {
    case 'waiting_agent':
      return `Calling ${to}: connecting this page`;
    case 'dialing_recipient':
      return `Calling ${to}: ringing`;
    case 'connected':
      return `Connected to ${to}`;
    case 'ending':
      return 'Hanging up';
    case 'outcome_unknown':
      return 'Outcome unknown: waiting for the service to say how the call went';
    default:
      return endLabel(call) ?? plain(call.state);
  }
}

/** An answerNext() attempt before its caller is named, in words; null for a call's attempt. */
function claimWords(attempt: VoiceBrowserStatus['attempt'], nameOf: QueueNamer): string | null {
  if (attempt?.queueId === undefined) return null;
  const queue = nameOf(attempt.queueId);
  return attempt.phase === 'outcome_unknown' ? `The next caller from ${queue} may have been claimed: finding out` : `Answering the next caller from ${queue}`;
}

/**
 * What a connected call's words add about its audio, when it does not flow: only what the helper proved (the media
 * path's state), never that the call is lost, for it still runs at the service.
 */
function connectedAudioWords(status: VoiceBrowserStatus): string | null {
  // The network blinked: the helper is restarting the call's media path, the call itself goes on.
  if (status.audio === 'reconnecting') return 'the audio is reconnecting';
  // The far end holds the call (RFC 3264 section 8.4): its silence is expected, and nothing failed.
  if (status.audio === 'held') return 'on hold by the other side';
  if (status.audio === 'failed') return 'no audio: the audio path to this browser failed';
  if (status.warnings.includes('no_audio_path')) return 'no audio yet: the audio path has not connected';
  return null;
}

/**
 * The one line the page announces to screen readers (`aria-live`) as things change: the call's state in words
 * while there is a call or an attempt, else the connection's. `nameOf` names an inbound caller's queue.
 */
export function announcementLabel(status: VoiceBrowserStatus, nameOf: QueueNamer = byId): string {
  const audioWords = status.call?.state === 'connected' ? connectedAudioWords(status) : null;
  if (status.call && audioWords) return `${callStateWords(status.call, nameOf)}; ${audioWords}`;
  if (status.call) return callStateWords(status.call, nameOf);
  const claim = claimWords(status.attempt, nameOf);
  if (claim) return claim;
  if (status.attempt?.phase === 'creating') return 'Placing the call';
  if (status.attempt?.phase === 'outcome_unknown') return 'The call may have been placed: retry it, or disconnect';
  return connectionLabel(status.connection);
}

/** Each warning during a call, in words that say what the user hears and what to try. */
const WARNINGS: Readonly<Record<CallWarning, string>> = {
  no_audio_path:
    "No audio path yet between this browser and the voice service: its network connection for audio (ICE) has not connected. A VPN or firewall may block it; the service may need a TURN server",
  no_inbound_audio: 'No sound from the other side for 3 seconds: the network may be dropping it',
  silent_microphone: 'Your microphone sends silence: check that it is plugged in and not muted on the device',
  high_packet_loss: 'The network is losing some of the audio: it may sound choppy',
  high_rtt: 'The network is slow: expect a delay when you talk',
};

export function warningLabel(warning: CallWarning): string {
  return WARNINGS[warning];
}

/**
 * Who the call is with: "To +12025550100 from +12025550199", from the call, else the attempt; for an inbound
 * caller "From +14155550123 to +18005550100 (Support queue)"; null with neither.
 */
export function partiesLabel(status: VoiceBrowserStatus, nameOf: QueueNamer = byId): string | null {
  const queueId = inboundQueueId(status.call);
  if (status.call && queueId !== null) {
    const dialled = status.call.to ? ` to ${status.call.to}` : '';
    return `From ${status.call.from ?? 'an unknown number'}${dialled} (${nameOf(queueId)} queue)`;
  }
  const to = status.call?.to ?? status.attempt?.input.to;
  const from = status.call?.from ?? status.attempt?.input.from;
  if (!to) return null;
  return from ? `To ${to} from ${from}` : `To ${to}`;
}

/**
 * What the call card holds: a recovered session's cleanup, a call in progress (Hang up, Mute, keypad), or the
 * dialer: when nothing is busy, and after a lost answer, whose call is retried under the same attempt.
 */
export function callCardMode(status: VoiceBrowserStatus): 'recovery' | 'in-call' | 'dialer' {
  if (isCleanupOnly(status)) return 'recovery';
  if (!status.busy || (canRetryCall(status) && !status.call)) return 'dialer';
  return 'in-call';
}
