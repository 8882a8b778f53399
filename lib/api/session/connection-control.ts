import { toVoiceError, VoiceBrowserError } from '../../core/errors.js';
import { sessionView } from '../../core/machines/connection-machine.js';
import { claimedCaller } from '../../runtime/queue-call.js';
import type { Runtime } from '../../runtime/runtime-types.js';
import type { BrowserCall, BrowserSession, VoiceBrowserStatus } from '../../core/types.js';

/**
 * The connection operations that need no SIP: disconnect() and recover(), each a sequence of requests whose
 * steps are connection events sent to the runtime; the connection machine decides the states. disconnect() reads
 * in one place, call cleanup included. They load in a chunk of their own; connect() and renew(), which register,
 * come with SIP.js.
 */

/**
 * How long disconnect() waits for a terminal read, for reads to find the call of a lost request, and, once
 * the session ended, for reads to prove that its call ended with it.
 */
const END_WAIT_MS = 15_000;
const UNKNOWN_WAIT_MS = 3_000;
const PROOF_WAIT_MS = 3_000;

/** A signal for a request that must finish even when the helper's lifetime ends (an ending session). */
const detached = () => new AbortController().signal;

/** Hangs up and waits for the call's end: a lost request first gets a few seconds of reads to find its call. */
async function endCall(rt: Runtime): Promise<VoiceBrowserError | undefined> {
  let failure: VoiceBrowserError | undefined;
  await rt.hangup().catch((error: unknown) => (failure = toVoiceError(error, 'cleanup_unknown', 'hangup failed')));
  if (rt.callState.attempt?.phase === 'outcome_unknown') await rt.reads.waitForEnd(UNKNOWN_WAIT_MS);
  if (rt.callState.busy && rt.callState.attempt?.phase !== 'outcome_unknown') await rt.reads.waitForEnd(END_WAIT_MS);
  return failure;
}

/** Ends the session; the failure to, if it did not end (the session is then kept and shown). */
async function endSession(rt: Runtime, sessionId: string | undefined): Promise<VoiceBrowserError | undefined> {
  if (!sessionId) return undefined;
  return rt.backend.endSession(sessionId, { signal: detached() }).then(
    () => undefined,
    (cause: unknown) => new VoiceBrowserError('cleanup_unknown', 'ending the session failed; call disconnect() again', { cause }),
  );
}

/** disconnect(): the call ended, the link closed, the session ended, and the end proven by a read. */
export async function disconnect(rt: Runtime): Promise<void> {
  const sessionId = rt.connectionState.session?.id;
  rt.dispatch({ type: 'disconnect_started' });
  const hangupFailure = rt.callState.busy && sessionId ? await endCall(rt) : undefined;
  await rt.closeLink();
  const endFailure = await endSession(rt, sessionId);
  // spec 3.2: ending the session is no proof that its call stopped; only a read after the end is.
  const proven = endFailure ? !rt.callState.busy : await rt.reads.proveEnded(PROOF_WAIT_MS);
  // Done with the call: no read or timer of it is left, a held INVITE is refused.
  rt.dispatch({ type: 'reads_stopped' });
  rt.reads.ended();
  rt.endLifetime();
  const failure =
    endFailure ??
    (proven ? undefined : new VoiceBrowserError('cleanup_unknown', 'the call was not confirmed ended; call disconnect() again, or recover() in a later page', { cause: hangupFailure }));
  rt.dispatch({ type: 'disconnect_finished', sessionKept: endFailure !== undefined, error: failure ? failure.toStatus() : null });
  if (failure) throw failure;
}

/** recover(): the session of an earlier page, and its call, shown for cleanup. */
export async function recover(rt: Runtime): Promise<VoiceBrowserStatus> {
  rt.beginLifetime();
  let found: { session: BrowserSession | null; call: BrowserCall | null };
  try {
    found = await rt.backend.getCurrentSession({ signal: rt.signal() });
  } catch (cause) {
    return rt.refuse(toVoiceError(cause, 'browser_voice_unavailable', 'could not read the current session; try recover() again'));
  }
  if (!found.session) return rt.status();
  // A support desk's agent may be on a caller it claimed from a queue: with the queue callbacks, that call is
  // looked for too, so that it shows for cleanup as a browser call would. Unreadable, it is left to the
  // session's end, which hangs it up.
  const claimed = found.call || !rt.backend.listQueueCalls ? null : await claimedCaller(rt.backend, rt.signal()).catch(() => null);
  rt.dispatch({ type: 'recovered', session: sessionView(found.session) });
  if (found.call && found.call.sessionId === found.session.id) rt.recoverCall(found.call, found.session.id);
  if (claimed) rt.recoverCall(claimed.call, found.session.id, claimed.routes);
  return rt.status();
}
