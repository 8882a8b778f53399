import type { ComponentChildren } from 'preact';
import { canRenew, type VoiceBrowserStatus } from 'voice-browser';
import { connectionButton, connectionLabel, isCleanupOnly, tabLabel } from '../connection-labels.js';

export interface ConnectionControlsProps {
  userName: string;
  status: VoiceBrowserStatus;
  /** recover() has not answered yet (connect() is refused meanwhile). */
  recovering: boolean;
  /** The error of what was done here, when it belongs here (see `errorArea`, the demo's labels). */
  error: ComponentChildren;
  onConnect(): void;
  onDisconnect(): void;
  onRenew(): void;
  onLogout(): void;
}

/**
 * The connection in words, with Connect or Disconnect (End session after a reload), Renew and Log out; only the
 * cleanup button after a reload found a session. Its errors show here.
 */
export function ConnectionControls({ userName, status, recovering, error, onConnect, onDisconnect, onRenew, onLogout }: ConnectionControlsProps) {
  const cleanupOnly = isCleanupOnly(status);
  const main = connectionButton(status);
  return (
    <section aria-label="Connection" class="connection">
      <p class="connection-line">
        <span class={`dot ${status.connection}`} aria-hidden="true" />
        <strong data-testid="connection-words">{connectionLabel(status.connection)}</strong>
        <span class="signed-in">
          Signed in as <strong>{userName}</strong>
        </span>
      </p>
      <p class="tab-line" data-testid="tab-words">
        {tabLabel(status.tabs)}
      </p>
      <div class="row buttons">
        <button
          type="button"
          class={main.action === 'connect' ? '' : 'secondary'}
          onClick={main.action === 'connect' ? onConnect : onDisconnect}
          disabled={!main.enabled || (main.action === 'connect' && recovering)}
        >
          {main.label}
        </button>
        {!cleanupOnly && (
          <>
            <button type="button" class="secondary" onClick={onRenew} disabled={!canRenew(status)} title="A new session with fresh credentials; only while idle">
              Renew
            </button>
            <button type="button" class="secondary" onClick={onLogout}>
              Log out
            </button>
          </>
        )}
      </div>
      {error}
    </section>
  );
}
