import { canConnect, type VoiceBrowserStatus } from 'voice-browser';

/**
 * The connection's words and the controls it offers, as pure functions (tested directly in
 * the demo's unit tests). Whether the helper takes connect() or renew() now is the library's rule
 * (canConnect, canRenew), not restated here.
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
      return 'Offline';
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

/**
 * Disconnect is offered while something is held (a session, or a call the last disconnect could not prove
 * ended: what connect() refuses over), and not twice while it is being ended.
 */
export function canDisconnect(status: VoiceBrowserStatus): boolean {
  return status.connection !== 'disconnecting' && !canConnect(status);
}

/**
 * The connection's one main button: Connect when nothing is open, else Disconnect (End session for a session
 * recover() found, spec 4.9), disabled while it cannot be taken.
 */
export function connectionButton(status: VoiceBrowserStatus): { label: 'Connect' | 'Disconnect' | 'End session'; action: 'connect' | 'disconnect'; enabled: boolean } {
  if (canConnect(status)) return { label: 'Connect', action: 'connect', enabled: true };
  return { label: status.connection === 'recovery_required' ? 'End session' : 'Disconnect', action: 'disconnect', enabled: canDisconnect(status) };
}

/**
 * spec 4.9: a session found by recover() offers cleanup only (hang up, end session); no call, audio,
 * mute, digits or renewal until it is gone.
 */
export function isCleanupOnly(status: VoiceBrowserStatus): boolean {
  return status.connection === 'recovery_required';
}

/** Which tab holds the phone (option `tabs`), in words for the connection line. */
export function tabLabel(tabs: VoiceBrowserStatus['tabs']): string {
  if (tabs.mode === 'independent') return 'This tab is a phone of its own.';
  return tabs.leader ? 'This tab holds the phone; your other tabs of this site share it.' : 'Another tab holds the phone: what you do here runs there.';
}
