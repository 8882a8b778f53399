import { HttpError } from './http-error.js';
import { redact } from './redact.js';

/**
 * The proxy's one door to the voice service: builds requests from an allow-list of headers, adds the
 * persistent key, and turns network faults into coded errors instead of hangs.
 */

/** Where the service is and how long to wait for it. */
export interface UpstreamOptions {
  /** `{base_url}` of the service, including `/api` (spec conventions). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Per-request limit, answer body included; past it the page gets a `504`. Default 10 s. */
  timeoutMs?: number;
}

/** One request to the service, as the proxy's routes describe it. */
export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below `{base_url}/v1/voice`, starting with `/`; ids in it must be checked with `isResourceId`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  idempotencyKey?: string;
  /**
   * The code of a `504` when this mutation's answer is lost after it may have been sent (spec 7: the
   * outcome is unknown); default `upstream_outcome_unknown`.
   */
  lostCode?: string;
}

/** The service's answer: status, parsed JSON body (key redacted) and the headers the page may see. */
export interface UpstreamResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

/** Headers of the service's answer that the page may see; everything else stays here. */
const PASSED_RESPONSE_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/** Failures that prove the request never left: nothing can have happened at the service. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth += 1) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    // Node reports a refused dual-stack connect as an AggregateError whose parts carry the codes.
    const first = cause instanceof AggregateError ? (cause.errors[0] as NodeJS.ErrnoException | undefined)?.code : undefined;
    if (typeof first === 'string') return first;
  }
  return undefined;
}

/**
 * What the page gets when no answer came: `503 upstream_unavailable` when the request provably never left,
 * `504 upstream_timeout` for a read that took too long, and for a mutation that may have been sent `504`
 * with its `lostCode`. Always a 5xx, never a 4xx: the library reads a 4xx as "nothing was done" (spec 7).
 */
function noAnswer(error: unknown, request: UpstreamRequest): HttpError {
  const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
  const notSent = !timedOut && NOT_SENT.has(errorCode(error) ?? '');
  if (notSent) return new HttpError(503, 'upstream_unavailable', 'the voice service could not be reached; nothing was done');
  if (request.method !== 'GET') {
    return new HttpError(504, request.lostCode ?? 'upstream_outcome_unknown', 'the voice service’s answer was lost and the request may have taken effect: read the current state, or retry with the same Idempotency-Key');
  }
  if (timedOut) return new HttpError(504, 'upstream_timeout', 'the voice service did not answer in time');
  return new HttpError(503, 'upstream_unavailable', 'the voice service could not be reached');
}

/** Sends one request to the service; rejects only with an {@link HttpError} (a 5xx when no answer came). */
export type Upstream = (request: UpstreamRequest) => Promise<UpstreamResponse>;

/** Creates the proxy's one door to the service; see the file comment. */
export function createUpstream(options: UpstreamOptions): Upstream {
  const doFetch = options.fetch ?? fetch;
  const base = `${options.baseUrl.replace(/\/+$/, '')}/v1/voice`;
  const timeoutMs = options.timeoutMs ?? 10_000;

  return async (request) => {
    const { method, path, query, body, idempotencyKey } = request;
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
    // Built from nothing: the page's cookies, Authorization or other headers never reach the service.
    const headers = new Headers({ Accept: 'application/json', 'X-Api-Key': options.apiKey });
    if (body !== undefined) headers.set('Content-Type', 'application/json');
    if (idempotencyKey !== undefined) headers.set('Idempotency-Key', idempotencyKey);
    let response: Response;
    let text: string;
    try {
      // One signal for the headers and the body: a service that stalls mid-body still ends in a 504.
      response = await doFetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      text = await response.text();
    } catch (error) {
      throw noAnswer(error, request);
    }
    let parsed: unknown = undefined;
    if (text !== '') {
      try {
        // Should the service ever echo the key (an error quoting the request), it is not relayed.
        parsed = JSON.parse(redact(text, [options.apiKey])) as unknown;
      } catch {
        throw new HttpError(502, 'upstream_invalid_response', 'the voice service answered something that is not JSON');
      }
    }
    const passed = new Headers();
    for (const name of PASSED_RESPONSE_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) passed.set(name, value);
    }
    return { status: response.status, body: parsed, headers: passed };
  };
}
