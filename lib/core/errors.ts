/**
 * The helper's one error type, with the stable codes of spec 7 (voice client errors) and the service's.
 */

/**
 * Every code the helper itself gives: the service's voice client errors first, then the ones it adds for
 * misuse, the microphone, DTMF and a request that got no answer. README's error table lists each.
 */
export const VOICE_ERROR_CODES = [
  'browser_voice_unavailable',
  'browser_agent_busy',
  'browser_session_unavailable',
  'connection_failed',
  'audio_path_failed',
  'turn_refused',
  'call_outcome_unknown',
  'dequeue_outcome_unknown',
  'monitor_outcome_unknown',
  'recording_outcome_unknown',
  'cleanup_unknown',
  'audio_playback_blocked',
  'microphone_permission_denied',
  'microphone_unavailable',
  'microphone_in_use',
  'dtmf_outcome_unknown',
  'no_active_call',
  'invalid_argument',
  'network_error',
] as const;

/** A code of {@link VOICE_ERROR_CODES}. */
export type VoiceErrorCode = (typeof VOICE_ERROR_CODES)[number];

/**
 * An error with a stable `code`: switch on it, show `message`, keep `cause` for logs.
 *
 * @remarks
 * `status` is the HTTP status when a backend call was answered (0 when no answer arrived), and
 * `retryAfterMs` the wait the service asked for on `429`.
 */
export class VoiceBrowserError extends Error {
  // Its fields are only declared here and set in the constructor: a class field would cost the es2020 bundles a
  // helper that defines it.
  declare readonly name: 'VoiceBrowserError';
  /** One of {@link VOICE_ERROR_CODES}, or the service's own code passed on as it sent it. */
  declare readonly code: VoiceErrorCode | (string & {});
  declare readonly status: number | undefined;
  declare readonly retryAfterMs: number | undefined;

  constructor(code: VoiceErrorCode | (string & {}), message: string, options: { cause?: unknown; status?: number; retryAfterMs?: number } = {}) {
    super(message, { cause: options.cause });
    this.name = 'VoiceBrowserError';
    this.code = code;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** The `{code, message}` shown in `status().error`. */
  toStatus(): { code: string; message: string } {
    return { code: this.code, message: this.message };
  }

  /**
   * `error instanceof VoiceBrowserError` checks the shape, as {@link isVoiceBrowserError} does, so it holds for an
   * error from another copy of the library (the lazily loaded SIP chunk carries its own, the testing kit too) or
   * another realm.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isVoiceBrowserError(value);
  }
}

/** True for a VoiceBrowserError from any realm (iframe, another copy of the library): checks shape, not class. */
export function isVoiceBrowserError(value: unknown): value is VoiceBrowserError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'VoiceBrowserError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** Any thrown value as a VoiceBrowserError, keeping its code when it has one. */
export function toVoiceError(value: unknown, fallbackCode: VoiceErrorCode | (string & {}), message: string): VoiceBrowserError {
  if (isVoiceBrowserError(value)) return value;
  return new VoiceBrowserError(fallbackCode, message, { cause: value });
}

/** An answer came back and said no: nothing was created. Anything else leaves the outcome unknown. */
export function isDefiniteRejection(error: VoiceBrowserError): boolean {
  const status = error.status ?? 0;
  // A conflict on our key proves something exists under it; in progress means it is still being made.
  const keyInUse = error.code === 'idempotency_in_progress' || error.code === 'idempotency_conflict';
  return status >= 400 && status < 500 && status !== 408 && !keyInUse;
}
