import { HttpError } from '../../contract/http-error.js';
import { isResourceId } from '../access/ownership.js';
import type { Relay } from './relay.js';
import type { Upstream } from './upstream.js';
import { pause, type Clock } from '../time/clock.js';

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
  clock: Clock;
}

/** What {@link createSessionCleanup} returns: the two cleanups one proxy runs. */
export interface SessionCleanup {
  /**
   * Ends `subject`'s current session and, when a call of it was shown running, proves the call over (see
   * the file comment); rejects with an {@link HttpError} when it could not: `504 cleanup_unknown` for a
   * call not proven ended, the upstream's own error for a read or session end that failed.
   */
  revoke(subject: string): Promise<void>;
  /**
   * The rejection of `POST /browser-sessions` for `subject`, made the page's error: when the answer was lost
   * after the request may have been sent (a `504` from `createUpstream`), the session it may have made is
   * ended first, then the page gets `504 browser_session_unavailable`; any other error is passed on.
   *
   * @remarks
   * Such a session has live credentials that no page was handed, and would stand until the user's next
   * session supersedes it or it expires. Ended is the user's current session when it has no running call;
   * one with a running call is in use by a page, and the service refuses a new session while the agent's
   * call runs (`409 browser_agent_busy`), so the lost request made none. Best effort: a failure is logged,
   * and the page's answer says the session may be left.
   */
  afterLostCreate(error: unknown, subject: string): Promise<never>;
}

/** What every step of the cleanup works through: the proxy's upstream, its `ensureOk` and the options. */
interface Deps {
  upstream: Upstream;
  ensureOk: Relay['ensureOk'];
  options: SessionCleanupOptions;
}

/** What `GET /browser-sessions?externalSubject=` answers (spec 4.7), as far as cleanup reads it. */
interface Current {
  session?: { id?: unknown } | null;
  call?: { id?: unknown; busy?: unknown } | null;
}

/** spec 3.2: a call is over only when a read shows `busy: false`; anything else (absent, unreadable) is not. */
const running = (call: Current['call']): boolean => call !== null && call !== undefined && call.busy !== false;

const codeOf = (error: unknown): string => (error instanceof HttpError ? error.code : 'unexpected error');

const notProven = () => new HttpError(504, 'cleanup_unknown', 'the user’s call could not be proven ended and may still run: hang it up, or revoke again');

/** The user's current session and call, as the service lists them under `subject`. */
const readCurrent = async ({ upstream, ensureOk }: Deps, subject: string): Promise<Current> =>
  (ensureOk(await upstream({ method: 'GET', path: '/browser-sessions', query: { externalSubject: subject } })).body ?? {}) as Current;

/** Ends one session; a lost answer is `cleanup_unknown`. */
const endSession = async ({ upstream, ensureOk }: Deps, id: string): Promise<void> => {
  ensureOk(await upstream({ method: 'DELETE', path: `/browser-sessions/${id}`, body: {}, lostCode: 'cleanup_unknown' }));
};

/** Whether a read of the call shows it over; a failed read shows nothing either way. */
const readsEnded = async ({ upstream, ensureOk }: Deps, id: string): Promise<boolean> => {
  const read = await upstream({ method: 'GET', path: `/browser-calls/${id}` }).then(ensureOk, () => undefined);
  return (read?.body as { call?: { busy?: unknown } } | undefined)?.call?.busy === false;
};

/** Asks the service to hang the call up; a failure is only logged, since the reads that follow decide. */
async function askHangup({ upstream, ensureOk, options }: Deps, id: string): Promise<void> {
  await upstream({ method: 'POST', path: `/browser-calls/${id}/hangup`, body: {}, lostCode: 'cleanup_unknown' })
    .then(ensureOk)
    // Not the verdict: a hangup whose answer was lost may have worked, and only a read can say.
    .catch((error: unknown) => options.log(`voice proxy: logout's hangup of the user's call failed (${codeOf(error)}); reading the call`));
}

/** Reads the call every `intervalMs` until a read shows it over, or throws once `deadline` would pass. */
async function awaitEnded(deps: Deps, id: string, deadline: number): Promise<void> {
  // spec 3.2: hangup 202 is no proof; a terminal read is.
  for (;;) {
    if (await readsEnded(deps, id)) return;
    if (deps.options.clock.now() + deps.options.intervalMs > deadline) break;
    await pause(deps.options.clock, deps.options.intervalMs);
  }
  throw notProven();
}

/** Ends a call the session's end may have left running, and resolves once a read proves it over. */
async function endCall(deps: Deps, id: unknown): Promise<void> {
  if (!isResourceId(id)) throw notProven();
  const deadline = deps.options.clock.now() + deps.options.waitMs;
  // The session's end may have ended the call already: a hangup goes only to a call still shown running.
  if (await readsEnded(deps, id)) return;
  await askHangup(deps, id);
  await awaitEnded(deps, id, deadline);
}

/** {@link SessionCleanup.revoke}. */
async function revoke(deps: Deps, subject: string): Promise<void> {
  const { session, call } = await readCurrent(deps, subject);
  let sessionFailure: unknown;
  if (isResourceId(session?.id)) await endSession(deps, session.id).catch((error: unknown) => (sessionFailure = error));
  // The call is the user's: the service listed it under their subject, as `createOwnership` proves it.
  if (running(call)) await endCall(deps, call?.id);
  // A call that ran is dealt with first: a session left open expires by itself, a call may not.
  if (sessionFailure !== undefined) throw sessionFailure;
}

/** Ends the session a lost create may have made; whether it could not (and so may be left), logged. */
async function endLostSession(deps: Deps, subject: string): Promise<{ left: boolean }> {
  try {
    const { session, call } = await readCurrent(deps, subject);
    if (isResourceId(session?.id) && !running(call)) await endSession(deps, session.id);
    return { left: false };
  } catch (failure) {
    deps.options.log(`voice proxy: a session whose answer was lost could not be ended (${codeOf(failure)}); it lasts until the user connects again or it expires`);
    return { left: true };
  }
}

/** {@link SessionCleanup.afterLostCreate}. */
async function afterLostCreate(deps: Deps, error: unknown, subject: string): Promise<never> {
  if (!(error instanceof HttpError && error.status === 504)) throw error;
  const { left } = await endLostSession(deps, subject);
  // Still a 5xx (spec 7: never a 4xx for a lost answer); the page's press made no session it can use.
  throw new HttpError(
    504,
    'browser_session_unavailable',
    left
      ? 'the voice service’s answer was lost, and a session it may have made could not be ended: connect again, which replaces it'
      : 'the voice service’s answer was lost; no session was left open: connect again',
  );
}

/** The cleanup of one proxy, over its upstream and relay. */
export function createSessionCleanup(upstream: Upstream, { ensureOk }: Relay, options: SessionCleanupOptions): SessionCleanup {
  const deps: Deps = { upstream, ensureOk, options };
  return {
    revoke: (subject) => revoke(deps, subject),
    afterLostCreate: (error, subject) => afterLostCreate(deps, error, subject),
  };
}
