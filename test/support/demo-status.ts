import type { VoiceBrowserStatus } from '../../lib/index.js';
import { INITIAL_STATUS } from '../../lib/core/status-snapshot.js';

/** The helper's first status, as the demo's tests start from: disconnected, no session, a tab alone. */
export const DISCONNECTED: VoiceBrowserStatus = INITIAL_STATUS;

/** Connected and idle: a session, nothing busy; tests spread it with what their case changes. */
export const READY: VoiceBrowserStatus = { ...INITIAL_STATUS, connection: 'ready', session: { id: 'bs_1', expiresAt: '2026-01-01T00:00:00Z' } };
