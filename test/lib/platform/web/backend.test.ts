import { describe, expect, it } from 'vitest';
import { createFetchBackend } from '../../../../lib/platform/web/backend.js';
import { VoiceBrowserError } from '../../../../lib/core/errors.js';
import { FakeClock } from '../../../../lib/testing/fake-clock.js';
import { rejection } from '../../../support/rejection.js';

interface Sent {
  url: string;
  method: string;
  headers: Headers;
  credentials: RequestCredentials | undefined;
  body: unknown;
  signal: AbortSignal | null | undefined;
}

/** A fetch that records each request and answers with what the test queued (default `200 {}`). */
function fakeFetch() {
  const sent: Sent[] = [];
  const answers: Array<() => Response> = [];
  const fetch: typeof globalThis.fetch = async (url, init = {}) => {
    sent.push({
      url: String(url),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      credentials: init.credentials,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
      signal: init.signal,
    });
    const answer = answers.shift();
    return answer ? answer() : json(200, {});
  };
  return { fetch, sent, answer: (response: () => Response) => answers.push(response) };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

const signal = new AbortController().signal;
const input = { sessionId: 'session-1', from: '+12025550199', to: '+12025550100' };


describe('createFetchBackend', () => {
  it('sends each callback to its method and path, with same-origin credentials and the caller signal', async () => {
    const { fetch, sent } = fakeFetch();
    const backend = createFetchBackend({ fetch });
    await backend.createSession({ signal });
    await backend.getCurrentSession({ signal });
    await backend.createCall(input, { idempotencyKey: 'key-1', signal });
    await backend.getCall('call-1', { signal });
    await backend.hangupCall('call-1', { signal });
    await backend.endSession('session-1', { signal });

    expect(sent.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /voice/browser-sessions',
      'GET /voice/browser-sessions',
      'POST /voice/browser-calls',
      'GET /voice/browser-calls/call-1',
      'POST /voice/browser-calls/call-1/hangup',
      'DELETE /voice/browser-sessions/session-1',
    ]);
    for (const s of sent) {
      expect(s.credentials).toBe('same-origin');
      expect(s.signal).toBe(signal);
    }
  });

  it('sends the Idempotency-Key header on createCall only', async () => {
    const { fetch, sent } = fakeFetch();
    const backend = createFetchBackend({ fetch });
    await backend.createSession({ signal });
    await backend.createCall(input, { idempotencyKey: 'key-1', signal });
    await backend.hangupCall('call-1', { signal });
    await backend.endSession('session-1', { signal });
    expect(sent.map((s) => s.headers.get('Idempotency-Key'))).toEqual([null, 'key-1', null, null]);
  });

  it('sends JSON bodies with a JSON content type, and no body or content type on reads', async () => {
    const { fetch, sent } = fakeFetch();
    const backend = createFetchBackend({ fetch });
    await backend.createCall({ ...input, customData: { ticket: '42' } }, { idempotencyKey: 'key-1', signal });
    await backend.hangupCall('call-1', { signal });
    await backend.endSession('session-1', { signal });
    await backend.getCall('call-1', { signal });
    await backend.getCurrentSession({ signal });

    expect(sent[0]!.body).toEqual({ ...input, customData: { ticket: '42' } });
    expect(sent[1]!.body).toEqual({});
    expect(sent[2]!.body).toEqual({});
    for (const s of sent.slice(0, 3)) expect(s.headers.get('Content-Type')).toBe('application/json');
    for (const s of sent.slice(3)) {
      expect(s.body).toBeUndefined();
      expect(s.headers.get('Content-Type')).toBeNull();
    }
  });

  it('resolves with the parsed envelope', async () => {
    const { fetch, answer } = fakeFetch();
    const call = { id: 'call-1', state: 'waiting_agent', busy: true, revision: 1, extra: { kept: true } };
    answer(() => json(202, { call }));
    const backend = createFetchBackend({ fetch });
    await expect(backend.createCall(input, { idempotencyKey: 'key-1', signal })).resolves.toEqual({ call });
  });

  it('speaks to the queue routes only when asked to (queues: true), escaping ids', async () => {
    expect(createFetchBackend({ fetch: fakeFetch().fetch })).not.toHaveProperty('dequeue');
    expect(createFetchBackend({ fetch: fakeFetch().fetch }).queueEventsUrl).toBeUndefined();
    const { fetch, sent } = fakeFetch();
    const backend = createFetchBackend({ fetch, queues: true, baseUrl: 'https://app.example/api' });
    await backend.dequeue?.('q/1', { signal });
    await backend.getQueueCall?.('c 1', { signal });
    await backend.hangupQueueCall?.('c-1', { signal });
    await backend.listQueueCalls?.({ signal });
    expect(sent.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST https://app.example/api/voice/queues/q%2F1/dequeue',
      'GET https://app.example/api/voice/calls/c%201',
      'POST https://app.example/api/voice/calls/c-1/hangup',
      'GET https://app.example/api/voice/calls',
    ]);
    expect(backend.queueEventsUrl).toBe('https://app.example/api/voice/queue-events');
  });

  it('escapes ids in paths', async () => {
    const { fetch, sent } = fakeFetch();
    await createFetchBackend({ fetch }).getCall('a/b?c', { signal });
    expect(sent[0]!.url).toBe('/voice/browser-calls/a%2Fb%3Fc');
  });

  it('turns a JSON error body into a VoiceBrowserError with its code, text and the HTTP status', async () => {
    const { fetch, answer } = fakeFetch();
    answer(() => json(403, { error: 'the number is on a do-not-call list', code: 'compliance_dnc' }));
    const error = await rejection(createFetchBackend({ fetch }).createCall(input, { idempotencyKey: 'key-1', signal }));
    expect(error).toBeInstanceOf(VoiceBrowserError);
    expect(error.code).toBe('compliance_dnc');
    expect(error.status).toBe(403);
    expect(error.message).toBe('the number is on a do-not-call list');
    expect(error.retryAfterMs).toBeUndefined();
  });

  it('names an error without a code after its HTTP status', async () => {
    const { fetch, answer } = fakeFetch();
    answer(() => new Response('<html>bad gateway</html>', { status: 502 }));
    const error = await rejection(createFetchBackend({ fetch }).getCall('call-1', { signal }));
    expect(error.code).toBe('http_502');
    expect(error.status).toBe(502);
  });

  it('reads Retry-After seconds as retryAfterMs', async () => {
    const { fetch, answer } = fakeFetch();
    answer(() => json(429, { error: 'slow down', code: 'rate_limited' }, { 'Retry-After': '3' }));
    const error = await rejection(createFetchBackend({ fetch }).getCall('call-1', { signal }));
    expect(error.code).toBe('rate_limited');
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(3000);
  });

  it('reads a Retry-After date as the wait from now, and one past as no wait', async () => {
    const { fetch, answer } = fakeFetch();
    const clock = new FakeClock(Date.parse('2026-11-26T10:00:00Z'));
    const backend = createFetchBackend({ fetch, clock });
    answer(() => json(429, { error: 'slow down', code: 'rate_limited' }, { 'Retry-After': 'Thu, 26 Nov 2026 10:00:04 GMT' }));
    expect((await rejection(backend.getCall('call-1', { signal }))).retryAfterMs).toBe(4000);
    answer(() => json(429, { error: 'slow down', code: 'rate_limited' }, { 'Retry-After': 'Thu, 26 Nov 2026 09:59:00 GMT' }));
    expect((await rejection(backend.getCall('call-1', { signal }))).retryAfterMs).toBe(0);
    answer(() => json(429, { error: 'slow down', code: 'rate_limited' }, { 'Retry-After': 'soon' }));
    expect((await rejection(backend.getCall('call-1', { signal }))).retryAfterMs).toBeUndefined();
  });

  it('turns a fetch that throws into network_error with status 0, keeping the cause', async () => {
    const cause = new TypeError('Failed to fetch');
    const fetch: typeof globalThis.fetch = () => Promise.reject(cause);
    const error = await rejection(createFetchBackend({ fetch }).createCall(input, { idempotencyKey: 'key-1', signal }));
    expect(error.code).toBe('network_error');
    expect(error.status).toBe(0);
    expect(error.cause).toBe(cause);
  });

  it('prefixes every path with baseUrl', async () => {
    const { fetch, sent } = fakeFetch();
    const backend = createFetchBackend({ fetch, baseUrl: 'https://app.example/api' });
    await backend.createSession({ signal });
    await backend.getCall('call-1', { signal });
    expect(sent.map((s) => s.url)).toEqual(['https://app.example/api/voice/browser-sessions', 'https://app.example/api/voice/browser-calls/call-1']);
  });
});
