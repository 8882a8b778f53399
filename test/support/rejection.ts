import { isVoiceBrowserError, type VoiceBrowserError } from '../../lib/core/errors.js';

/** The VoiceBrowserError `promise` rejects with (fails when it resolves or rejects with something else). */
export async function rejection(promise: Promise<unknown>): Promise<VoiceBrowserError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!isVoiceBrowserError(outcome)) throw new Error(`expected a VoiceBrowserError, got ${String(outcome)}`);
  return outcome;
}
