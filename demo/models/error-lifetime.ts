import type { StatusError, VoiceBrowserStatus } from 'voice-browser';
import { errorArea } from '../labels.js';
import type { ErrorView } from './voice-actions.js';

/**
 * How long a call's error stays on the call card: the rule, as a pure function of the page's error view and each
 * status the helper reports (tested directly in the demo's unit tests).
 *
 * @remarks
 * An error shown on the call card belongs to the call in progress when it was raised (a refused keypad press, a
 * recording that failed, the audio blocked): once that call is over the card says how it ended, and the error,
 * about a call that no longer runs, is settled. An error raised with no call in progress (a refused call, a lost
 * answer) stays beside the dialer until the next call starts, or until a later action succeeds (`createAct`).
 * Errors shown elsewhere (the connection, the queues) are about those, and a call's end does not settle them;
 * nor does it settle the errors about what outlives the call (the session, the key, the microphone's permission),
 * which the card may show when a call was the last action.
 */

/** Codes about what outlives a call: the session, the service's key, the connection, the browser's permission. */
const OUTLIVES_CALL: ReadonlySet<string> = new Set(['browser_session_unavailable', 'browser_voice_unavailable', 'connection_failed', 'cleanup_unknown', 'microphone_permission_denied']);

/** The helper's error as it was first seen: the call in progress then, if any. */
export interface RaisedError {
  error: StatusError;
  /** The call shown when it was raised, or null. */
  callId: string | null;
  /** Whether that call was in progress (busy) then. */
  inCall: boolean;
}

/** The error view after the helper reported `status`: its error's call noted, and settled once that call is over. */
export function followCall(view: ErrorView, status: VoiceBrowserStatus): ErrorView {
  const { error, call } = status;
  if (!error || error === view.settled) return view.raised === null ? view : { ...view, raised: null };
  if (view.raised?.error !== error) return { ...view, raised: { error, callId: call?.id ?? null, inCall: call?.busy === true } };
  if (errorArea(error.code, view.lastAction) !== 'call' || OUTLIVES_CALL.has(error.code)) return view;
  const { callId, inCall } = view.raised;
  const running = call?.busy === true;
  // Raised in a call: over once that call is. Raised outside one: over once a new call runs.
  const over = inCall ? !running || call?.id !== callId : running && call?.id !== callId;
  return over ? { ...view, settled: error } : view;
}
