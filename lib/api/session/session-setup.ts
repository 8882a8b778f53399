import { sessionView } from '../../core/machines/connection-machine.js';
import { toVoiceError } from '../../core/errors.js';
import type { Runtime } from '../../runtime/runtime-types.js';
import type { SipLink } from '../../runtime/sip-link.js';
import type { BrowserSession } from '../../core/types.js';

/**
 * connect() and renew(): a session created and registered, its steps connection events sent to the runtime.
 * Part of the SIP chunk: both register, so they arrive with SIP.js, and a page that only recovers or cleans up
 * never downloads them.
 */

/** A signal for a request that must finish even when the helper's lifetime ends (an ending session). */
const detached = () => new AbortController().signal;

export type SessionSetup = ReturnType<typeof createSessionSetup>;

/** connect() and renew() over one runtime; its closure holds no state, only the steps. */
export function createSessionSetup(rt: Runtime) {
  const { backend, clock } = rt;

  /**
   * A new session and its registered link, which the runtime then uses (`registered`); a session whose
   * registration fails is ended again.
   */
  async function establish(startedAt: number, onCreated: (session: BrowserSession) => void): Promise<void> {
    const { session, transport } = await backend.createSession({ signal: rt.signal() });
    rt.timing('session_created', startedAt);
    onCreated(session);
    let link: SipLink;
    try {
      // The link tries to reconnect for as long as the session is valid: it is told until when.
      link = await rt.openLink({ ...transport, expiresAt: session.expiresAt });
      rt.timing('registered', startedAt);
    } catch (cause) {
      rt.ignoreLinkEvents();
      await backend.endSession(session.id, { signal: detached() }).catch(() => undefined);
      throw toVoiceError(cause, 'connection_failed', 'could not register with the voice service');
    }
    rt.useLink(link);
    rt.dispatch({ type: 'registered', session: sessionView(session) });
  }

  async function connect(): Promise<void> {
    const startedAt = clock.now();
    rt.beginLifetime();
    rt.dispatch({ type: 'connect_started' });
    try {
      await establish(startedAt, (session) => rt.dispatch({ type: 'session_created', session: sessionView(session) }));
    } catch (cause) {
      const error = toVoiceError(cause, 'connection_failed', 'could not connect to the voice service');
      rt.dispatch({ type: 'connect_failed', error: error.toStatus() });
      throw error;
    }
  }

  async function renew(): Promise<void> {
    const startedAt = clock.now();
    const old = { link: rt.link, sessionId: rt.connectionState.session?.id };
    rt.dispatch({ type: 'renew_started' });
    let sessionCreated = false;
    try {
      await establish(startedAt, () => (sessionCreated = true));
    } catch (cause) {
      const error = toVoiceError(cause, 'connection_failed', 'renewing the session failed');
      rt.dispatch({ type: 'renew_failed', error: error.toStatus(), sessionCreated });
      throw error;
    }
    // The old session is superseded: its link closes and the service is told it is over.
    await old.link?.close();
    if (old.sessionId) await backend.endSession(old.sessionId, { signal: detached() }).catch(() => undefined);
  }

  return { connect, renew };
}
