import { RENEWABLE_CONNECTIONS, type VoiceBrowserStatus } from 'voice-browser';
import { errorAdvice } from 'voice-browser/advice';

/** What the phone shows for one status: words, and which buttons apply now. A pure function, tested alone. */
export interface PhoneView {
  headline: string;
  /** The helper's error in words, with what to do next; null when there is none. */
  problem: string | null;
  canConnect: boolean;
  /** Call places a new call when idle; after a lost answer it is Retry call, which repeats the same attempt. */
  callLabel: 'Call' | 'Retry call';
  canCall: boolean;
  canHangUp: boolean;
  canMute: boolean;
  canRenew: boolean;
  canDisconnect: boolean;
}

/** The end reasons this page puts in words; any other shows as a plain "Call ended". */
const END_REASONS: Record<string, string> = {
  agent_hangup: 'you hung up',
  recipient_hangup: 'they hung up',
  recipient_busy: 'the line was busy',
  no_answer: 'nobody answered',
  connection_lost: 'the connection was lost',
  max_duration: 'the call reached its time limit',
  session_ended: 'the session ended',
};

function callWords(status: VoiceBrowserStatus): string | null {
  const call = status.call;
  if (!call) return status.attempt ? 'Not sure the call started: retry it, or disconnect' : null;
  const who = call.to ?? 'the number';
  switch (call.state) {
    case 'waiting_agent':
      return `Calling ${who}: connecting your audio`;
    case 'dialing_recipient':
      return `Calling ${who}: ringing`;
    case 'connected':
      return `In a call with ${who}`;
    case 'ending':
      return 'Hanging up';
    case 'outcome_unknown':
      return 'Checking whether the call went through';
    case 'failed':
      return `The call to ${who} failed`;
    case 'ended': {
      const reason = call.endReason ? END_REASONS[call.endReason] : undefined;
      return reason ? `Call ended: ${reason}` : 'Call ended';
    }
    default:
      // A state a newer service adds: say it plainly rather than nothing.
      return `Call ${String(call.state).replaceAll('_', ' ')}`;
  }
}

const CONNECTION_WORDS: Record<VoiceBrowserStatus['connection'], string> = {
  disconnected: 'Not connected',
  connecting: 'Connecting',
  ready: 'Ready to call',
  reconnecting: 'Reconnecting',
  offline: 'Offline: renew to try again',
  expired: 'Session expired: renew to call again',
  renewing: 'Renewing the session',
  disconnecting: 'Disconnecting',
  recovery_required: 'A call from an earlier visit is still on: hang up or disconnect',
};

export function viewOf(status: VoiceBrowserStatus): PhoneView {
  const { connection, busy } = status;
  const retry = status.attempt?.phase === 'outcome_unknown';
  return {
    headline: callWords(status) ?? CONNECTION_WORDS[connection],
    problem: status.error ? `${status.error.message} ${errorAdvice(status.error.code)}` : null,
    canConnect: connection === 'disconnected',
    callLabel: retry ? 'Retry call' : 'Call',
    canCall: retry || (connection === 'ready' && !busy),
    canHangUp: busy,
    canMute: status.call?.state === 'connected',
    canRenew: RENEWABLE_CONNECTIONS.has(connection) && !busy,
    canDisconnect: connection !== 'disconnected' && connection !== 'disconnecting',
  };
}
