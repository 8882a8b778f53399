import { VoiceBrowserError } from './errors.js';
import type { CallInput } from './types.js';

/**
 * What startCall() checks before anything is sent, and how an attempt's input is kept and compared.
 *
 * @remarks
 * Only what the helper itself relies on: the number format and the idempotency key. The rest of spec 2.6
 * (customData limits, maxDurationSeconds) is the server's to judge, with zod in the proxy; its 400 arrives
 * as a definite rejection with the code, and nothing is created.
 */

/** E.164: a plus sign, a country code not starting with 0, at most 15 digits in all. */
const E164 = /^\+[1-9]\d{1,14}$/;
/** spec 4.7: at most 128 characters; printable ASCII, as an HTTP header value carries it unchanged. */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,128}$/;

/** The error startCall() gives for bad arguments, or undefined when they are fine. */
export function checkStart(input: CallInput | undefined, key: unknown): VoiceBrowserError | undefined {
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key) || key.trim() === '') {
    return new VoiceBrowserError('invalid_argument', 'idempotencyKey must be 1-128 printable ASCII characters, new for each new call');
  }
  if (!input || !E164.test(input.from) || !E164.test(input.to)) {
    return new VoiceBrowserError('invalid_argument', 'from and to must be E.164 numbers such as +12025550100');
  }
  return undefined;
}

/** A retry must carry the input of the attempt it retries: the service would answer a 409 otherwise. */
export function sameInput(a: CallInput, b: CallInput): boolean {
  // customData is a map: the order its keys were written in is not part of the input.
  const canonical = (input: CallInput) =>
    JSON.stringify([input.from, input.to, input.maxDurationSeconds, input.record, input.customData && Object.entries(input.customData).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))]);
  return canonical(a) === canonical(b);
}

/** The caller's input, copied: the status snapshot is frozen and must not freeze the caller's object. */
export function copyInput(input: CallInput): CallInput {
  return { ...input, ...(input.customData ? { customData: { ...input.customData } } : {}) };
}
