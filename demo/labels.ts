import type { VoiceBrowserStatus } from '../lib/index.js';

/**
 * Words for what the page shows, as pure functions (tested directly).
 */

export function connectionLabel(connection: VoiceBrowserStatus['connection']): string {
  switch (connection) {
    case 'disconnected':
      return 'Not connected';
    case 'connecting':
      return 'Connecting…';
    case 'ready':
      return 'Ready';
    case 'reconnecting':
      return 'Reconnecting…';
    case 'offline':
      return 'Connection lost';
    case 'expired':
      return 'Session expired';
    case 'renewing':
      return 'Renewing…';
    case 'disconnecting':
      return 'Disconnecting…';
    case 'recovery_required':
      return 'Recovery required';
  }
}

/** The call line: the service's state, or what the attempt is waiting for. */
export function callLabel(status: VoiceBrowserStatus): string {
  if (status.call) return status.call.state;
  if (status.attempt?.phase === 'creating') return 'requesting…';
  if (status.attempt?.phase === 'outcome_unknown') return 'outcome unknown';
  return 'no call';
}

/** Calling is allowed when idle, and after a lost answer (the same attempt is retried, spec 7). */
export function canCall(status: VoiceBrowserStatus): boolean {
  return status.connection === 'ready' && (!status.busy || status.attempt?.phase === 'outcome_unknown');
}

/** The call button says when it retries the same attempt rather than starting a new one. */
export function callButtonLabel(status: VoiceBrowserStatus): string {
  return status.attempt?.phase === 'outcome_unknown' ? 'Retry call' : 'Call';
}

export function canHangUp(status: VoiceBrowserStatus): boolean {
  return status.busy && status.call !== null && status.call.state !== 'ending';
}
