import { VoiceBrowserError } from '../../core/errors.js';
import { canConnect, canRenew } from '../../core/status-rules.js';
import type { PreflightReport } from '../../core/helper-types.js';
import type { Runtime } from '../../runtime/runtime-types.js';
import type { CallInput, VoiceBrowserStatus } from '../../core/types.js';

/**
 * The session's methods as a page calls them: recover(), connect(), disconnect(), renew() and preflight(), each
 * checked against the status rules and joined while in flight (a second call of one joins the first). The work
 * itself comes in a chunk: connect() and renew() register, so they come with SIP.js; disconnect() and recover()
 * come alone, without it.
 */

/** How the methods reach the work, which the helper loads on first use. */
export interface SessionWork {
  connect(): Promise<void>;
  renew(): Promise<void>;
  disconnect(): Promise<void>;
  recover(): Promise<VoiceBrowserStatus>;
  preflight(call: CallInput): Promise<PreflightReport>;
}

/** The session's methods of one helper: the same operations as the work, checked and joined. */
export type SessionMethods = SessionWork;

/** Why connect() may not run now, or undefined. */
function whyNoConnect(status: VoiceBrowserStatus): VoiceBrowserError | undefined {
  if (canConnect(status)) return undefined;
  const { busy, connection, session } = status;
  if (connection === 'recovery_required') return new VoiceBrowserError('browser_session_unavailable', 'a session from before the reload must be cleaned up with disconnect() first');
  return busy
    ? new VoiceBrowserError('cleanup_unknown', 'a call of the last session was not proven ended; disconnect() again before connect()')
    : new VoiceBrowserError('browser_session_unavailable', `connect() while ${connection}${session ? ' with a session to clean up: disconnect() first' : ''}`);
}

/** Why renew() may not run now, or undefined. */
function whyNoRenew(status: VoiceBrowserStatus): VoiceBrowserError | undefined {
  if (canRenew(status)) return undefined;
  return status.busy
    ? new VoiceBrowserError('browser_agent_busy', 'renew() only while idle: wait until busy is false')
    : new VoiceBrowserError('browser_session_unavailable', `renew() while ${status.connection}; connect() first`);
}

/** The session's methods over a runtime and the work it is given; its closure holds the operations in flight. */
export function createSessionMethods(rt: Runtime, work: SessionWork): SessionMethods {
  let connecting: Promise<void> | undefined;
  let renewing: Promise<void> | undefined;
  let disconnecting: Promise<void> | undefined;
  let recovering: Promise<VoiceBrowserStatus> | undefined;
  let testing: Promise<PreflightReport> | undefined;
  /** Nothing held (what connect() needs) and nothing being found or connected. */
  const fresh = () => canConnect(rt.status()) && !recovering && !connecting;
  /** recover() and preflight() are for a helper that holds nothing yet. */
  const notFresh = (method: string) => rt.refuse(new VoiceBrowserError('browser_session_unavailable', `${method}() is for a fresh helper, before connect()`));
  const methods: SessionMethods = {
    recover() {
      // A preflight's own session would be found: recover() looks after it is gone.
      if (recovering || testing) return recovering ?? testing!.then(methods.recover);
      if (!fresh()) return notFresh('recover');
      return (recovering = work.recover().finally(() => (recovering = undefined)));
    },
    connect() {
      const status = rt.status();
      if (status.connection === 'ready') return Promise.resolve();
      if (connecting || testing) return connecting ?? testing!.then(methods.connect);
      const refused = whyNoConnect(status);
      // recover() decides whether there is a session to clean up first: connect() follows its answer.
      if (recovering && status.connection !== 'recovery_required') return recovering.then(methods.connect);
      if (refused) return rt.refuse(refused);
      return (connecting = work.connect().finally(() => (connecting = undefined)));
    },
    disconnect() {
      // Nothing held: nothing to end.
      if (disconnecting || (canConnect(rt.status()) && !connecting)) return disconnecting ?? Promise.resolve();
      // A connect() or renew() in flight finishes first: its session is then the one ended.
      disconnecting = Promise.allSettled([connecting, renewing])
        .then(work.disconnect)
        .finally(() => (disconnecting = undefined));
      return disconnecting;
    },
    renew() {
      const refused = renewing ? undefined : whyNoRenew(rt.status());
      if (refused) return rt.refuse(refused);
      return (renewing ??= work.renew().finally(() => (renewing = undefined)));
    },
    preflight(call) {
      if (testing) return testing;
      if (!fresh()) return notFresh('preflight');
      return (testing = work.preflight(call).finally(() => (testing = undefined)));
    },
  };
  return methods;
}
