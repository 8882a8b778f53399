import { z } from 'zod';
import { HttpError } from './http-error.js';

/**
 * Input rules of browser voice (spec 2.6, 4.7, 8), checked with zod before any work is done: by the proxy
 * before it forwards anything, and by the simulator as the service would.
 */

/** E.164: a plus sign, a country code not starting with 0, at most 15 digits in all (ITU-T E.164). */
export const e164 = z.string().regex(/^\+[1-9]\d{1,14}$/, 'must be an E.164 number such as +12025550100');

const externalSubject = z.string().min(1, 'must not be empty').max(200, 'is at most 200 characters');

/** spec 2.6: at most 32 string pairs; keys 1-128 characters, not starting with `$`, no NUL; values ≤ 1,024. */
export const customData = z
  .record(
    z.string().min(1).max(128).refine((key) => !key.startsWith('$') && !key.includes('\0'), 'keys must not start with $ or contain NUL'),
    z.string().max(1024),
  )
  .refine((data) => Object.keys(data).length <= 32, 'at most 32 pairs')
  .refine((data) => new TextEncoder().encode(JSON.stringify(data)).length <= 8192, 'compact UTF-8 JSON is at most 8,192 bytes');

export const agentInput = z.strictObject({
  name: z.string().min(1).max(200),
  type: z.literal('webrtc'),
  externalSubject,
});

export const sessionInput = z.strictObject({ externalSubject });

export const callInput = z.strictObject({
  sessionId: z.string().min(1).max(200),
  from: e164,
  to: e164,
  maxDurationSeconds: z.number().int().min(1).max(14_400).optional(),
  record: z.boolean().optional(),
  customData: customData.optional(),
});

export const emptyInput = z.union([z.strictObject({}), z.undefined()]);

/** Parses `body` or throws the spec's 400 with a field-specific code (`missing_to`, `invalid_phone`, ...). */
export function parseInput<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? 'body');
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  const message = `${where}${issue?.message ?? 'invalid input'}`;
  const missing = typeof body === 'object' && body !== null && !(field in body);
  if (missing && (field === 'from' || field === 'to' || field === 'name')) throw new HttpError(400, `missing_${field}`, message);
  if (field === 'from' || field === 'to') throw new HttpError(400, 'invalid_phone', message);
  if (field === 'customData') {
    const tooLarge = issue?.message.includes('8,192') || issue?.message.includes('32 pairs');
    throw new HttpError(400, tooLarge ? 'metadata_too_large' : 'invalid_metadata', message);
  }
  if (field === 'externalSubject' && issue?.code === 'too_big') throw new HttpError(400, 'field_too_long', message);
  throw new HttpError(400, 'invalid_input', message);
}

/** spec 4.7: `Idempotency-Key` is required, nonblank, at most 128 printable ASCII characters. */
export function parseIdempotencyKey(value: string | undefined | null): string {
  if (value === undefined || value === null || value.trim() === '') {
    throw new HttpError(400, 'idempotency_key_invalid', 'the Idempotency-Key header is required and must not be blank');
  }
  if (value.length > 128) throw new HttpError(400, 'idempotency_key_too_long', 'Idempotency-Key is at most 128 characters');
  if (!/^[\x20-\x7e]+$/.test(value)) throw new HttpError(400, 'idempotency_key_invalid', 'Idempotency-Key must be printable ASCII');
  return value;
}
