import type { VoiceBrowserStatus } from '../../lib/index.js';
import { canConnect, canDisconnect, canRenew, disconnectLabel, isCleanupOnly } from '../labels.js';

export interface ConnectionControlsProps {
  userName: string;
  status: VoiceBrowserStatus;
  /** recover() has not answered yet (connect() is refused meanwhile). */
  recovering: boolean;
  onConnect(): void;
  onDisconnect(): void;
  onRenew(): void;
  onLogout(): void;
}

/** Connect, Disconnect (End session after a reload), Renew and Log out; only the cleanup button after a reload found a session. */
export function ConnectionControls({ userName, status, recovering, onConnect, onDisconnect, onRenew, onLogout }: ConnectionControlsProps) {
  const cleanupOnly = isCleanupOnly(status);
  return (
    <section aria-label="Connection">
      <div class="row">
        <span>
          Signed in as <strong>{userName}</strong>
        </span>
        {!cleanupOnly && (
          <button type="button" onClick={onConnect} disabled={recovering || !canConnect(status)}>
            Connect
          </button>
        )}
        <button type="button" class="secondary" onClick={onDisconnect} disabled={!canDisconnect(status)}>
          {disconnectLabel(status)}
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
    </section>
  );
}
