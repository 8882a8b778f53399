import { HttpError } from './http-error.js';

/**
 * The proxy's one door to the voice service: builds requests from an allow-list of headers, adds the
 * persistent key, and turns network faults into coded errors instead of hangs.
 */

export interface UpstreamOptions {
  /** `{base_url}` of the service, including `/api` (spec conventions). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Per-request limit; past it the page gets `504 upstream_timeout`. Default 10 s. */
  timeoutMs?: number;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below `{base_url}/v1/voice`, starting with `/`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  idempotencyKey?: string;
}

export interface UpstreamResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

/** Headers of the service's answer that the page may see; everything else stays here. */
const PASSED_RESPONSE_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

export type Upstream = (request: UpstreamRequest) => Promise<UpstreamResponse>;

export function createUpstream(options: UpstreamOptions): Upstream {
  const doFetch = options.fetch ?? fetch;
  const base = `${options.baseUrl.replace(/\/+$/, '')}/v1/voice`;
  const timeoutMs = options.timeoutMs ?? 10_000;

  return async ({ method, path, query, body, idempotencyKey }) => {
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
    // Built from nothing: the page's cookies, Authorization or other headers never reach the service.
    const headers = new Headers({ Accept: 'application/json', 'X-Api-Key': options.apiKey });
    if (body !== undefined) headers.set('Content-Type', 'application/json');
    if (idempotencyKey !== undefined) headers.set('Idempotency-Key', idempotencyKey);
    let response: Response;
    try {
      response = await doFetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      // spec 7: a mutation whose answer was lost may have happened; the page keeps its attempt and key.
      const lost = method === 'POST' ? ' The request may have taken effect: retry with the same Idempotency-Key.' : '';
      if (timedOut) throw new HttpError(504, 'upstream_timeout', `the voice service did not answer in time.${lost}`);
      throw new HttpError(503, 'upstream_unavailable', `the voice service could not be reached.${lost}`);
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text !== '') {
      try {
        parsed = JSON.parse(text) as unknown;
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
