import { Agent } from 'undici';
import { HttpError } from '../../contract/http-error.js';
import { redact } from '../ops/redact.js';
import { systemClock, type Clock } from '../time/clock.js';
import { timeoutSignal } from '../time/deadline.js';

/**
 * The proxy's one door to the voice service: builds requests from an allow-list of headers, adds the
 * persistent key, and turns network faults into coded errors instead of hangs.
 *
 * @remarks
 * Requests go out through undici's `request` on a keep-alive pool of the proxy's own: the HTTP client under
 * Node's `fetch` without its WHATWG layers, which keeps the proxy within its added-latency target (docs/bench.md)
 * (docs/bench.md). An integrator's `fetch` option replaces the pool (tests use it to put a fault between
 * proxy and service).
 */

/** Where the service is and how long to wait for it. */
export interface UpstreamOptions {
  /** `{base_url}` of the service, including `/api` (spec conventions). */
  baseUrl: string;
  apiKey: string;
  /** Sends the requests instead of the built-in keep-alive pool (a test double, a runtime without undici). */
  fetch?: typeof fetch;
  /** Per-request limit, answer body included; past it the page gets a `504`. Default 10 s. */
  timeoutMs?: number;
  /** The time its deadlines run on; default the process's. */
  clock?: Clock;
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
  /** `body` as the service sent it, key redacted: relayed as is, so a poll is not parsed and written again. */
  text: string;
  /** Only those of {@link PASSED_RESPONSE_HEADERS} the service sent, by their lowercase names. */
  headers: Record<string, string>;
}

/** Headers of the service's answer that the page may see; everything else stays here. */
export const PASSED_RESPONSE_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

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
export function noAnswer(error: unknown, request: UpstreamRequest): HttpError {
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

/** One HTTP exchange, whole: the answer's status, a header reader and the body read to its end. */
interface Exchange {
  status: number;
  header(name: string): string | null;
  text: string;
}

interface Outgoing {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** One deadline for the headers and the body: a service that stalls mid-body still ends in time. */
  signal: AbortSignal;
}

/**
 * Sends one request to `path` (from the service's origin, query included) and reads the whole answer;
 * rejects on any network fault, or once `signal` aborts.
 */
type Transport = (path: string, outgoing: Outgoing) => Promise<Exchange>;

/** The service never redirects: one that does is misconfigured, and the request is treated as not answered. */
class RedirectError extends Error {}

function viaFetch(doFetch: typeof fetch, origin: string): Transport {
  return async (path, { method, headers, body, signal }) => {
    const response = await doFetch(origin + path, { method, headers, body, signal, redirect: 'error' });
    const text = await response.text();
    return { status: response.status, header: (name) => response.headers.get(name), text };
  };
}

function viaPool(origin: string): Transport {
  // As many connections as requests in flight; idle ones close by themselves and never keep the process alive.
  const pool = new Agent();
  return async (path, { method, headers, body, signal }) => {
    const response = await pool.request({ origin, path, method: method as 'GET', headers, body, signal });
    const text = await response.body.text();
    if (response.statusCode >= 300 && response.statusCode < 400) throw new RedirectError(`the voice service redirected (${response.statusCode})`);
    return {
      status: response.statusCode,
      header: (name) => {
        const value = response.headers[name];
        return Array.isArray(value) ? value.join(', ') : (value ?? null);
      },
      text,
    };
  };
}

/** Creates the proxy's one door to the service; see the file comment. */
export function createUpstream(options: UpstreamOptions): Upstream {
  // Parsed once: requests carry the origin and a path below it.
  const base = new URL(`${options.baseUrl.replace(/\/+$/, '')}/v1/voice`);
  const send = options.fetch ? viaFetch(options.fetch, base.origin) : viaPool(base.origin);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? systemClock;

  return async (request) => {
    const { method, path, query, body, idempotencyKey } = request;
    let target = base.pathname + path;
    if (query && Object.keys(query).length > 0) target += `?${new URLSearchParams(query).toString()}`;
    // Built from nothing: the page's cookies, Authorization or other headers never reach the service.
    const headers: Record<string, string> = { accept: 'application/json', 'x-api-key': options.apiKey };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let exchange: Exchange;
    const deadline = timeoutSignal(clock, timeoutMs, 'the voice service did not answer in time');
    try {
      exchange = await send(target, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: deadline.signal });
    } catch (error) {
      throw noAnswer(deadline.signal.aborted ? deadline.signal.reason : error, request);
    } finally {
      deadline.clear();
    }
    // Should the service ever echo the key (an error quoting the request), it is not relayed.
    const text = redact(exchange.text, [options.apiKey]);
    let parsed: unknown = undefined;
    if (text !== '') {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        throw new HttpError(502, 'upstream_invalid_response', 'the voice service answered something that is not JSON');
      }
    }
    const passed: Record<string, string> = {};
    for (const name of PASSED_RESPONSE_HEADERS) {
      const value = exchange.header(name);
      if (value !== null) passed[name] = value;
    }
    return { status: exchange.status, body: parsed, text, headers: passed };
  };
}

/** `upstream`, telling `heard` the status of each answer (0: no answer came). */
export function heardBy(upstream: Upstream, heard: (status: number) => void): Upstream {
  return async (request) => {
    try {
      const response = await upstream(request);
      heard(response.status);
      return response;
    } catch (error) {
      heard(0);
      throw error;
    }
  };
}
