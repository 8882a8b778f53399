import type { Clock } from '../../core/clock.js';
import { VoiceBrowserError } from '../../core/errors.js';
import type { CallbackOptions, VoiceBackend } from '../../core/backend-types.js';

/**
 * The default backend: the six callbacks over `fetch` to the proxy's same-origin routes, and the queue ones
 * when asked for.
 * The only file of the library that touches `fetch`.
 */

export interface FetchBackendOptions {
  /** Prefix of the proxy's routes; default `''` (same origin, `/voice/...`). */
  baseUrl?: string;
  /** Injected fetch; default the page's. */
  fetch?: typeof fetch;
  /**
   * Support desks: adds the queue callbacks (dequeue, the agent's claimed callers, the waiting callers' event
   * stream, the agent's availability for offers, a supervisor's monitor) over the proxy's queue routes, which its
   * `queues` option turns on. Default false: the helper then never asks for them, and `recover()` reads only the
   * current session. The recording callbacks are always there.
   */
  queues?: boolean;
  /**
   * What a Retry-After date is read against; default `Date`, the page's clock (its `now()` is what the helper's
   * clock reads too). A test seam, not published.
   * @internal
   */
  clock?: Pick<Clock, 'now'>;
}

/** Seconds or an HTTP date (RFC 9110 section 10.2.3) as milliseconds to wait from `now`. */
function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Number.isNaN(ms) ? undefined : Math.max(0, ms);
}

/**
 * Creates the backend the helper uses with our proxy.
 *
 * @example
 * ```ts
 * const voice = createVoiceBrowser({ backend: createFetchBackend(), remoteAudio: audioElement });
 * ```
 */
export function createFetchBackend(options: FetchBackendOptions = {}): VoiceBackend {
  const base = `${options.baseUrl ?? ''}/voice`;

  async function request<T>(method: string, path: string, { signal }: CallbackOptions, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const doFetch = options.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(base + path, {
        method,
        signal,
        credentials: 'same-origin',
        headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
        // JSON.stringify(undefined) is undefined: a read sends no body.
        body: JSON.stringify(body),
      });
    } catch (cause) {
      // No answer: for a mutation the outcome is unknown, and the caller decides what that means.
      throw new VoiceBrowserError('network_error', `${method} ${path} got no answer`, { cause, status: 0 });
    }
    const parsed: unknown = await response.json().catch(() => undefined);
    if (response.ok && parsed !== undefined) return parsed as T;
    const envelope = (parsed ?? {}) as { code?: unknown; error?: unknown; message?: unknown };
    const code = typeof envelope.code === 'string' ? envelope.code : response.ok ? 'invalid_response' : `http_${response.status}`;
    const text = typeof envelope.error === 'string' ? envelope.error : `${method} ${path} answered ${response.status}`;
    throw new VoiceBrowserError(code, text, { status: response.status, retryAfterMs: retryAfterMs(response.headers.get('retry-after'), (options.clock ?? Date).now()) });
  }

  const id = encodeURIComponent;
  return {
    createSession: (opts) => request('POST', '/browser-sessions', opts, {}),
    getCurrentSession: (opts) => request('GET', '/browser-sessions', opts),
    createCall: (input, opts) => request('POST', '/browser-calls', opts, input, { 'Idempotency-Key': opts.idempotencyKey }),
    getCall: (callId, opts) => request('GET', `/browser-calls/${id(callId)}`, opts),
    hangupCall: (callId, opts) => request('POST', `/browser-calls/${id(callId)}/hangup`, opts, {}),
    endSession: (sessionId, opts) => request('DELETE', `/browser-sessions/${id(sessionId)}`, opts, {}),
    startRecording: (callId, opts) => request('POST', `/calls/${id(callId)}/recordings`, opts, {}),
    stopRecording: (callId, recordingId, opts) => request('POST', `/calls/${id(callId)}/recordings/${id(recordingId)}/stop`, opts, {}),
    ...(options.queues
      ? {
          dequeue: (queueId, opts) => request('POST', `/queues/${id(queueId)}/dequeue`, opts, {}),
          getQueueCall: (callId, opts) => request('GET', `/calls/${id(callId)}`, opts),
          hangupQueueCall: (callId, opts) => request('POST', `/calls/${id(callId)}/hangup`, opts, {}),
          listQueueCalls: (opts) => request('GET', '/calls', opts),
          queueEventsUrl: `${base}/queue-events`,
          setAvailability: (availability, opts) => request('PUT', '/availability', opts, { availability }),
          getAvailability: (opts) => request('GET', '/availability', opts),
          monitorCall: (callId, opts) => request('POST', `/calls/${id(callId)}/monitor`, opts, {}),
        }
      : {}),
  };
}
