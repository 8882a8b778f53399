import type { z } from 'zod';
import { HttpError } from '../../contract/http-error.js';

/**
 * Bodies of the control API (`/__sim/`): JSON (read by `readJsonBody`, as the service's own routes read theirs),
 * checked with zod before anything changes (STYLE.md, validate at the edge). A refusal is `400 invalid_input` whose message names the field, as the service's own input
 * errors do (spec 7).
 */

/** `input` as `schema` reads it, or `400 invalid_input` naming the first field at fault (`body` for the whole). */
export function parseControlInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(400, 'invalid_input', `${issue?.path.map(String).join('.') || 'body'}: ${issue?.message ?? 'invalid input'}`);
}
