import { HttpError } from '../../contract/http-error.js';
import { redact } from '../ops/redact.js';
import { noAnswer, PASSED_RESPONSE_HEADERS, type UpstreamOptions, type UpstreamResponse } from './upstream.js';
import { systemClock, type Clock } from '../time/clock.js';
import { timeoutSignal } from '../time/deadline.js';

/**
 * The proxy's door to the service for a file (a recording's audio): the answer's body is handed on as it
 * arrives, never held whole in memory. Requests are built from nothing but the key, `Accept` and the page's
 * `Range`, as every upstream request is (`createUpstream`).
 *
 * @remarks
 * The deadline covers the wait for the answer's headers, and then each wait for the next bytes while the page
 * asks for them: the body flows as fast as the page reads it, a service that stalls mid-file ends the download
 * with an error, and a page that goes away cancels it, which ends the request to the service.
 */

/** One file request: the path below `{base_url}/v1/voice` (ids checked with `isResourceId`), and the page's Range. */
export interface StreamRequest {
  path: string;
  range?: string | undefined;
}

/** A file answer (200, 206) with its body as a stream, or any other answer read whole, as `upstream` reads it. */
export type StreamAnswer =
  | { streamed: true; status: number; headers: Record<string, string>; body: ReadableStream<Uint8Array> | null }
  | { streamed: false; response: UpstreamResponse };

/** Sends one file request; rejects only with an {@link HttpError}. */
export type UpstreamStream = (request: StreamRequest) => Promise<StreamAnswer>;

/** Headers of a file answer that reach the page, besides the rate-limit ones. */
const FILE_HEADERS = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'content-disposition'];

/** `body` pulled only as the page reads, erroring and cancelling the service's body when no bytes come for `idleMs`. */
function withIdleDeadline(body: ReadableStream<Uint8Array>, idleMs: number, clock: Clock): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let timer: unknown;
        const stalled = new Promise<never>((_, reject) => {
          timer = clock.setTimeout(() => reject(new HttpError(504, 'upstream_timeout', 'the voice service stopped sending the file')), idleMs);
        });
        try {
          const next = await Promise.race([reader.read(), stalled]);
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(error);
          await reader.cancel(error).catch(() => undefined);
        } finally {
          clock.clearTimeout(timer);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** Creates the file door over the integrator's `fetch`, else the runtime's. */
export function createUpstreamStream(options: UpstreamOptions): UpstreamStream {
  const base = `${options.baseUrl.replace(/\/+$/, '')}/v1/voice`;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clock = options.clock ?? systemClock;
  return async ({ path, range }) => {
    // identity: a compressed answer's ranges and length would not be the file's.
    const headers: Record<string, string> = { accept: 'audio/*, application/json', 'accept-encoding': 'identity', 'x-api-key': options.apiKey };
    if (range !== undefined) headers['range'] = range;
    const deadline = timeoutSignal(clock, timeoutMs, 'the voice service did not answer in time');
    let response: Response;
    try {
      response = await doFetch(base + path, { method: 'GET', headers, signal: deadline.signal, redirect: 'error' });
    } catch (error) {
      throw noAnswer(deadline.signal.aborted ? deadline.signal.reason : error, { method: 'GET', path });
    } finally {
      deadline.clear();
    }
    const picked = (names: readonly string[]) => Object.fromEntries(names.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name) as string]] : [])));
    if (response.status === 200 || response.status === 206) {
      const body = response.body && withIdleDeadline(response.body, timeoutMs, clock);
      return { streamed: true, status: response.status, headers: picked([...PASSED_RESPONSE_HEADERS, ...FILE_HEADERS]), body };
    }
    // A refusal is a small JSON body: read whole, the key redacted, as any answer of the service.
    const text = redact(await response.text().catch(() => ''), [options.apiKey]);
    let body: unknown = undefined;
    try {
      body = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      throw new HttpError(502, 'upstream_invalid_response', 'the voice service answered something that is not JSON');
    }
    return { streamed: false, response: { status: response.status, body, text, headers: picked([...PASSED_RESPONSE_HEADERS, 'content-range']) } };
  };
}

/** `stream`, telling `heard` the status and headers of each answer (status 0: no answer came). */
export function heardStream(stream: UpstreamStream, heard: (status: number, headers: Readonly<Record<string, string>>) => void): UpstreamStream {
  return async (request) => {
    try {
      const answer = await stream(request);
      if (answer.streamed) heard(answer.status, answer.headers);
      else heard(answer.response.status, answer.response.headers);
      return answer;
    } catch (error) {
      heard(0, {});
      throw error;
    }
  };
}
