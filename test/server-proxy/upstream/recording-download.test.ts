import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, send, type Fetch, type Harness } from '../support/harness.js';

/**
 * A recording's download through the proxy, against a service whose file answer the test holds open: the page
 * gets the first bytes while the service has not sent the rest (the proxy pipes, never buffers the file), the
 * page's Range goes up and nothing else of the page's does, and a page that goes away, or a service that stops
 * sending, ends the service's body.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const recording = { id: 'rec_1', callId: 'bc_1', state: 'completed', contentType: 'audio/wav', sizeBytes: 8 };

/** The service's file answer, its first chunk sent at once and the second when `release` is called. */
function heldFile() {
  let release = () => {};
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array([1, 2, 3, 4]));
      release = () => {
        controller.enqueue(new Uint8Array([5, 6, 7, 8]));
        controller.close();
      };
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, release: () => release(), cancelled: () => cancelled };
}

/** A service where alice's browser call bc_1 has the recording rec_1, whose file is `file`. */
function serviceWith(file: ReturnType<typeof heldFile>) {
  return (simulator: Fetch): Fetch =>
    async (input, init) => {
      const path = new URL(String(input)).pathname.replace(/^\/api\/v1\/voice/, '');
      if (path === '/recordings/rec_1') return Response.json({ recording });
      if (path === '/browser-calls/bc_1') return Response.json({ call: { id: 'bc_1', externalSubject: 'alice', state: 'ended', busy: false } });
      if (path === '/recordings/rec_1/audio') {
        return new Response(file.body, { status: 206, headers: { 'Content-Type': 'audio/wav', 'Content-Range': 'bytes 0-7/100', 'Content-Length': '8', 'Set-Cookie': 'service=1' } });
      }
      return simulator(input, init);
    };
}

describe('GET /recordings/:id/audio', () => {
  it('hands the page the first bytes while the service still holds the rest, with the Range passed up', async () => {
    const file = heldFile();
    h = createHarness({ rateLimit: false, log: () => {}, wrap: serviceWith(file) });
    const answer = await h.proxy(new Request('http://app.test/voice/recordings/rec_1/audio', { headers: { 'x-test-user': 'alice', Range: 'bytes=0-7', Cookie: 'app=secret' } }));
    expect(answer.status).toBe(206);
    expect(answer.headers.get('content-range')).toBe('bytes 0-7/100');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('set-cookie')).toBeNull();
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect([...((await reader.read()).value ?? [])]).toEqual([1, 2, 3, 4]);
    file.release();
    expect([...((await reader.read()).value ?? [])]).toEqual([5, 6, 7, 8]);
    expect((await reader.read()).done).toBe(true);

    const asked = h.seen.find((request) => request.path === '/recordings/rec_1/audio');
    expect(asked?.headers.get('range')).toBe('bytes=0-7');
    expect(asked?.headers.get('accept-encoding')).toBe('identity');
    expect(asked?.headers.get('cookie')).toBeNull();
  });

  it('ends the service’s body when the page goes away', async () => {
    const file = heldFile();
    h = createHarness({ rateLimit: false, log: () => {}, wrap: serviceWith(file) });
    const answer = await h.proxy(new Request('http://app.test/voice/recordings/rec_1/audio', { headers: { 'x-test-user': 'alice' } }));
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    expect(file.cancelled()).toBe(true);
  });

  it('ends the page’s download with an error, and the service’s body, when the service stops sending', async () => {
    const file = heldFile();
    h = createHarness({ rateLimit: false, log: () => {}, timeoutMs: 100, wrap: serviceWith(file) });
    const answer = await h.proxy(new Request('http://app.test/voice/recordings/rec_1/audio', { headers: { 'x-test-user': 'alice' } }));
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect([...((await reader.read()).value ?? [])]).toEqual([1, 2, 3, 4]);
    await expect(reader.read()).rejects.toMatchObject({ code: 'upstream_timeout' });
    expect(file.cancelled()).toBe(true);
  });

  it('asks nothing of the file for a user the recording is not of, and answers as for no recording', async () => {
    const file = heldFile();
    h = createHarness({ rateLimit: false, log: () => {}, wrap: serviceWith(file) });
    const theirs = await send(h, 'GET', '/voice/recordings/rec_1/audio', { user: 'bob' });
    const none = await send(h, 'GET', '/voice/recordings/rec_none/audio', { user: 'bob' });
    expect(theirs).toMatchObject({ status: 404, json: { error: 'no such recording', code: 'not_found' } });
    expect(theirs.text).toBe(none.text);
    expect(h.seen.some((request) => request.path.endsWith('/audio'))).toBe(false);
  });
});
