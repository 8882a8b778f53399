import { z } from 'zod';
import { HttpError } from './http-error.js';

/**
 * The service's contract, its input rules (spec 2.6, 4.7, 7, 8): E.164, `customData`, `Idempotency-Key`, JSON
 * bodies, checked with zod before any work is done: by the proxy before it forwards anything, and by the
 * simulator as the service would. contract/ imports neither of them, so both import it.
 *
 * @remarks
 * Lengths are counted in characters (Unicode code points), as the spec states them, not in UTF-16 units:
 * an `externalSubject` of 200 emoji is within its limit. Only `customData`'s 8,192 is a count of bytes.
 */

type Issue = z.ZodError['issues'][number];

/** Characters of `text`: code points, so a surrogate pair is one. */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** A string of `min` to `max` characters; too long is `field_too_long` (spec 7). */
const text = (min: number, max: number, tooLongCode = 'field_too_long') =>
  z
    .string()
    .refine((value) => charCount(value) >= min, min === 1 ? 'must not be empty' : `is at least ${min} characters`)
    .refine((value) => charCount(value) <= max, { message: `is at most ${max} characters`, params: { code: tooLongCode } });

/** E.164: a plus sign, a country code not starting with 0, at most 15 digits in all (ITU-T E.164). */
export const e164 = z.string().regex(/^\+[1-9]\d{1,14}$/, 'must be an E.164 number such as +12025550100');

/** spec 2.6, 8: derived from the user's identity, at most 200 characters. */
export const externalSubject = text(1, 200);

const CUSTOM_DATA_MAX_PAIRS = 32;
const CUSTOM_DATA_MAX_BYTES = 8192;

/** spec 2.6: at most 32 string pairs; keys 1-128 characters, not starting with `$`, no NUL; values ≤ 1,024. */
export const customData = z
  .record(
    text(1, 128, 'invalid_metadata').refine((key) => !key.startsWith('$') && !key.includes('\0'), 'keys must not start with $ or contain NUL'),
    text(0, 1024, 'invalid_metadata'),
  )
  .refine((data) => Object.keys(data).length <= CUSTOM_DATA_MAX_PAIRS, {
    message: `at most ${CUSTOM_DATA_MAX_PAIRS} pairs`,
    params: { code: 'metadata_too_large' },
  })
  .refine((data) => new TextEncoder().encode(JSON.stringify(data)).length <= CUSTOM_DATA_MAX_BYTES, {
    message: 'compact UTF-8 JSON is at most 8,192 bytes',
    params: { code: 'metadata_too_large' },
  });

/** spec 4.7: a browser agent has no `number`. */
export const agentInput = z.strictObject({
  name: text(1, 200),
  type: z.literal('webrtc'),
  externalSubject,
});

export const sessionInput = z.strictObject({ externalSubject });

/** spec 2.6 "Browser call input". */
export const callInput = z.strictObject({
  sessionId: text(1, 200),
  from: e164,
  to: e164,
  maxDurationSeconds: z.number().int().min(1).max(14_400).optional(),
  record: z.boolean().optional(),
  customData: customData.optional(),
});

export const emptyInput = z.union([z.strictObject({}), z.undefined()]);

/** A URL the service would fetch or post to: `invalid_url` when it is not one, `invalid_url_scheme` unless http(s) (spec 7). */
const webUrl = z
  .string()
  .refine((value) => URL.canParse(value), { message: 'must be an absolute URL', params: { code: 'invalid_url' } })
  .refine((value) => !URL.canParse(value) || ['http:', 'https:'].includes(new URL(value).protocol), { message: 'must be http or https', params: { code: 'invalid_url_scheme' } });

/** spec 4.8: `POST /queues {name, holdAudioUrl, notifyUrl, notifySecret}`; the secret is optional (spec 6.1). */
export const queueInput = z.strictObject({
  name: text(1, 255, 'name_too_long'),
  holdAudioUrl: webUrl,
  notifyUrl: webUrl,
  notifySecret: text(1, 255).optional(),
});

/** `POST /queues/{id}/dequeue` (DESIGN.md): the agent the head caller is bridged to. */
export const dequeueInput = z.strictObject({ connectTo: text(1, 128) });

/** Fields whose absence has a code of its own (spec 7); any other missing field is `missing_fields`. */
const MISSING_CODES: Readonly<Record<string, string>> = { from: 'missing_from', to: 'missing_to', name: 'missing_name' };

function codeOf(issue: Issue, body: unknown): string {
  const field = issue.path[0];
  if (typeof field !== 'string') return 'invalid_input';
  const absent = typeof body === 'object' && body !== null && !Object.hasOwn(body, field);
  if (absent) return MISSING_CODES[field] ?? 'missing_fields';
  if (issue.code === 'custom' && typeof issue.params?.['code'] === 'string') return issue.params['code'];
  if (field === 'from' || field === 'to') return 'invalid_phone';
  if (field === 'customData') return 'invalid_metadata';
  return 'invalid_input';
}

function messageOf(issue: Issue): string {
  // A bad record key reports "Invalid key in record"; what was wrong with it is one level down.
  const detail = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return issue.path.length ? `${issue.path.map(String).join('.')}: ${detail}` : detail;
}

/** Parses `body` or throws the spec's 400 with a field-specific code (`missing_to`, `invalid_phone`, ...). */
export function parseInput<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw new HttpError(400, 'invalid_input', 'invalid input');
  throw new HttpError(400, codeOf(issue, body), messageOf(issue));
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

/** The request's JSON body; undefined when it is empty, `400 invalid_input` when it is not JSON. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'invalid_input', 'the body is not valid JSON');
  }
}
