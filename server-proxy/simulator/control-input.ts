import type { z } from 'zod';
import { HttpError } from '../http-error.js';

/**
 * Bodies of the control API (`/__sim/`): JSON, checked with zod before anything changes (STYLE.md, validate at
 * the edge). A refusal is `400 invalid_input` whose message names the field, as the service's own input
 * errors do (spec 7).
 */

/** The request's JSON body; undefined for an empty one, `400 invalid_input` for one that is not JSON. */
export async function readControlBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'invalid_input', 'the body is not valid JSON');
  }
}

/** `input` as `schema` reads it, or `400 invalid_input` naming the first field at fault (`body` for the whole). */
export function parseControlInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(400, 'invalid_input', `${issue?.path.map(String).join('.') || 'body'}: ${issue?.message ?? 'invalid input'}`);
}
