import { HttpError } from '../contract/http-error.js';
import { isResourceId } from './ownership.js';
import type { Relay } from './relay.js';
import type { Upstream } from './upstream.js';

/**
 * Sessions the page does not hold, ended by the proxy itself: the user's session and call at logout, and a
 * session whose creating answer was lost on the way to the page.
 *
 * @remarks
 * Ending a session proves nothing about its call (spec 3.2: session revocation is insufficient proof that
 * both legs stopped): a session that expired while its call ran is answered `200 {status: 'expired'}` by
 * `DELETE` and its call may run on. So logout hangs the call up itself and reads it until a read shows
 * `busy: false`.
 */

/** Options of {@link createSessionCleanup}. */
export interface SessionCleanupOptions {
  /** How long a logout reads a call it asked to end before it gives up proving the end, in ms. */
  waitMs: number;
  /** Time between those reads, in ms. */
  intervalMs: number;
  log: (message: string) => void;
}

/** What `GET /browser-sessions?externalSubject=` answers (spec 4.7), as far as cleanup reads it. */
interface Current {
  session?: { id?: unknown } | null;
  call?: { id?: unknown; busy?: unknown } | null;
}

/** spec 3.2: a call is over only when a read shows `busy: false`; anything else (absent, unreadable) is not. */
const running = (call: Current['call']): boolean => call !== null && call !== undefined && call.busy !== false;

const codeOf = (error: unknown): string => (error instanceof HttpError ? error.code : 'unexpected error');

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The cleanup of one proxy, over its upstream and relay. */
export function createSessionCleanup(upstream: Upstream, { ensureOk }: Relay, options: SessionCleanupOptions) {
  const readCurrent = async (subject: string): Promise<Current> =>
    (ensureOk(await upstream({ method: 'GET', path: '/browser-sessions', query: { externalSubject: subject } })).body ?? {}) as Current;
  const endSession = async (id: string): Promise<void> => {
    ensureOk(await upstream({ method: 'DELETE', path: `/browser-sessions/${id}`, body: {}, lostCode: 'cleanup_unknown' }));
  };
  /** Whether a read of the call shows it over; a failed read shows nothing either way. */
  const readsEnded = async (id: string): Promise<boolean> => {
    const read = await upstream({ method: 'GET', path: `/browser-calls/${id}` }).then(ensureOk, () => undefined);
    return (read?.body as { call?: { busy?: unknown } } | undefined)?.call?.busy === false;
  };

  const notProven = () => new HttpError(504, 'cleanup_unknown', 'the user’s call could not be proven ended and may still run: hang it up, or revoke again');

  /** Ends a call the session's end may have left running, and resolves once a read proves it over. */
  async function endCall(id: unknown): Promise<void> {
    if (!isResourceId(id)) throw notProven();
    const deadline = Date.now() + options.waitMs;
    // The session's end may have ended the call already: a hangup goes only to a call still shown running.
    if (await readsEnded(id)) return;
    await upstream({ method: 'POST', path: `/browser-calls/${id}/hangup`, body: {}, lostCode: 'cleanup_unknown' })
      .then(ensureOk)
      // Not the verdict: a hangup whose answer was lost may have worked, and only a read can say.
      .catch((error: unknown) => options.log(`voice proxy: logout's hangup of the user's call failed (${codeOf(error)}); reading the call`));
    // spec 3.2: hangup 202 is no proof; a terminal read is.
    for (;;) {
      if (await readsEnded(id)) return;
      if (Date.now() + options.intervalMs > deadline) break;
      await pause(options.intervalMs);
    }
    throw notProven();
  }

  return {
    /**
     * Ends `subject`'s current session and, when a call of it was shown running, proves the call over (see
     * the file comment); rejects with an {@link HttpError} when it could not: `504 cleanup_unknown` for a
     * call not proven ended, the upstream's own error for a read or session end that failed.
     */
    async revoke(subject: string): Promise<void> {
      const { session, call } = await readCurrent(subject);
      let sessionFailure: unknown;
      if (isResourceId(session?.id)) await endSession(session.id).catch((error: unknown) => (sessionFailure = error));
      // The call is the user's: the service listed it under their subject, as ownership.ts proves it.
      if (running(call)) await endCall(call?.id);
      // A call that ran is dealt with first: a session left open expires by itself, a call may not.
      if (sessionFailure !== undefined) throw sessionFailure;
    },

    /**
     * The rejection of `POST /browser-sessions` for `subject`, made the page's error: when the answer was lost
     * after the request may have been sent (a `504` from `upstream.ts`), the session it may have made is
     * ended first, then the page gets `504 browser_session_unavailable`; any other error is passed on.
     *
     * @remarks
     * Such a session has live credentials that no page was handed, and would stand until the user's next
     * session supersedes it or it expires. Ended is the user's current session when it has no running call;
     * one with a running call is in use by a page, and the service refuses a new session while the agent's
     * call runs (`409 browser_agent_busy`), so the lost request made none. Best effort: a failure is logged,
     * and the page's answer says the session may be left.
     */
    async afterLostCreate(error: unknown, subject: string): Promise<never> {
      if (!(error instanceof HttpError && error.status === 504)) throw error;
      let left = false;
      try {
        const { session, call } = await readCurrent(subject);
        if (isResourceId(session?.id) && !running(call)) await endSession(session.id);
      } catch (failure) {
        left = true;
        options.log(`voice proxy: a session whose answer was lost could not be ended (${codeOf(failure)}); it lasts until the user connects again or it expires`);
      }
      // Still a 5xx (spec 7: never a 4xx for a lost answer); the page's press made no session it can use.
      throw new HttpError(
        504,
        'browser_session_unavailable',
        left
          ? 'the voice service’s answer was lost, and a session it may have made could not be ended: connect again, which replaces it'
          : 'the voice service’s answer was lost; no session was left open: connect again',
      );
    },
  };
}
