import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchBackend } from '../../../lib/platform/web/backend.js';
import { VoiceBrowserError } from '../../../lib/core/errors.js';
import { createVoiceProxy, type VoiceProxy } from '../../../server-proxy/setup/proxy.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { API_KEY, createHarness, createSession, send, testAuthenticate, type Fetch, type Harness } from '../support/harness.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { settleOnClock } from '../support/drive-clock.js';
import { freePort } from '../support/redis-server.js';

/**
 * Upstream faults over real loopback sockets and in-process: no answer becomes a 5xx with a code within the
 * time limit, never a hang; a mutation whose answer was lost is reported as outcome-unknown (5xx), which
 * the library keeps as `call_outcome_unknown` with its idempotency key, never as a 4xx rejection.
 */

let cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  cleanups = [];
});

function harness(options: Parameters<typeof createHarness>[0]): Harness {
  const h = createHarness({ rateLimit: false, ...options });
  cleanups.push(() => h.close());
  return h;
}

async function simulator(): Promise<RunningSimulator> {
  const sim = await startSimulator({ apiKey: API_KEY, port: 0, mediaAddresses: 'loopback' });
  cleanups.push(() => sim.close());
  return sim;
}

function realProxy(baseUrl: string, timeoutMs = 2000, clock?: FakeClock): VoiceProxy {
  // No start-up read: the faults armed here are for the requests each test makes.
  return createVoiceProxy({ baseUrl, apiKey: API_KEY, authenticate: testAuthenticate, timeoutMs, rateLimit: false, log: () => undefined, checkService: false, ...(clock ? { clock } : {}) });
}

/** alice's request to the proxy (the harness's `send`: the key is in no answer). */
const page = (proxy: VoiceProxy, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  send({ proxy, apiKey: API_KEY }, method, path, { user: 'alice', body, headers });

async function armFault(sim: RunningSimulator, fault: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${sim.url}/__sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) });
  expect(response.status).toBeLessThan(300);
}

/** A socket error as undici reports it, after the request was written. */
const socketClosed = () => new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });

describe('a lost answer to a mutation', () => {
  it('POST /voice/browser-calls: 504 call_outcome_unknown, which the library reads as unknown, not as a rejection', async () => {
    const h = harness({
      wrap: (sim) => async (input, init) => {
        const answer = await sim(input, init);
        // The service did the work; the answer is lost on the way back.
        if (init?.method === 'POST' && String(input).endsWith('/browser-calls')) throw socketClosed();
        return answer;
      },
    });
    const alice = await createSession(h, 'alice');
    const body = { sessionId: alice.session.id, from: '+12025550199', to: '+12025550100' };

    const response = await send(h, 'POST', '/voice/browser-calls', { user: 'alice', body, headers: { 'Idempotency-Key': 'press-1' } });
    expect(response.status).toBe(504);
    expect(response.json).toEqual({ error: expect.stringContaining('same Idempotency-Key'), code: 'call_outcome_unknown' });

    // The library's own backend over this proxy: a 5xx, so call-control keeps the attempt (spec 7).
    const backend = createFetchBackend({ fetch: (url, init) => h.proxy(new Request(`http://app.test${String(url)}`, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-test-user': 'alice' } })) });
    const error = await backend.createCall(body, { idempotencyKey: 'press-1', signal: new AbortController().signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VoiceBrowserError);
    expect((error as VoiceBrowserError).code).toBe('call_outcome_unknown');
    expect((error as VoiceBrowserError).status).toBeGreaterThanOrEqual(500);
  });

  it('DELETE /voice/browser-sessions/:id over a real socket the service drops after ending it: 504 cleanup_unknown', async () => {
    const sim = await simulator();
    const proxy = realProxy(sim.baseUrl);
    const created = await page(proxy, 'POST', '/voice/browser-sessions', {});
    const id = (created.json as { session: { id: string } }).session.id;
    await armFault(sim, { method: 'DELETE', path: '/api/v1/voice/browser-sessions/:id', fault: 'drop-response' });

    const response = await page(proxy, 'DELETE', `/voice/browser-sessions/${id}`, {});

    expect(response.status).toBe(504);
    expect(response.json).toMatchObject({ code: 'cleanup_unknown' });
    expect(sim.service.getSession(API_KEY, id).status).toBe('ended');
  });

  it('POST /voice/browser-calls over a real socket the service drops: 504 call_outcome_unknown', async () => {
    const sim = await simulator();
    const proxy = realProxy(sim.baseUrl);
    const created = await page(proxy, 'POST', '/voice/browser-sessions', {});
    const id = (created.json as { session: { id: string } }).session.id;
    await armFault(sim, { method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'drop-response' });

    const response = await page(proxy, 'POST', '/voice/browser-calls', { sessionId: id, from: '+12025550199', to: '+12025550100' }, { 'Idempotency-Key': 'k1' });

    expect(response.status).toBe(504);
    expect(response.json).toMatchObject({ code: 'call_outcome_unknown' });
  });
});

describe('no answer at all', () => {
  it('a service that refuses connections: 503 upstream_unavailable at once, for reads and mutations (nothing was sent)', async () => {
    const port = await freePort();
    // A clock that never moves: both answers come without any of the proxy's timers running out.
    const clock = new FakeClock(Date.parse('2026-01-05T09:00:00Z'));
    const proxy = realProxy(`http://127.0.0.1:${port}/api`, 2000, clock);
    const read = await page(proxy, 'GET', '/voice/browser-sessions');
    const create = await page(proxy, 'POST', '/voice/browser-sessions', {});
    expect(read.status).toBe(503);
    expect(read.json).toMatchObject({ code: 'upstream_unavailable' });
    expect(create.status).toBe(503);
    expect(create.json).toMatchObject({ code: 'upstream_unavailable' });
    expect(clock.pendingTimers).toBe(0);
  });

  /** A service that never finishes its answer within the limit: its base URL, and once the request reached it. */
  const slowServices: Array<[string, () => Promise<{ baseUrl: string; reached: Promise<void> }>]> = [
    [
      'a slow service',
      async () => {
        const sim = await simulator();
        await armFault(sim, { method: 'GET', path: '/api/v1/voice/browser-sessions', fault: 'delay', delayMs: 3000 });
        return { baseUrl: sim.baseUrl, reached: Promise.resolve() };
      },
    ],
    [
      'a service that sends headers and then stalls mid-body',
      async () => {
        let heard: () => void = () => undefined;
        const reached = new Promise<void>((resolve) => (heard = resolve));
        const stalled: Server = createServer((_request, response) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{"session":', () => heard());
        });
        await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
        cleanups.push(() => {
          stalled.closeAllConnections();
          return new Promise((resolve) => stalled.close(resolve));
        });
        const address = stalled.address();
        return { baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api`, reached };
      },
    ],
  ];

  it.each(slowServices)('%s: 504 upstream_timeout on a read after the time limit, not later', async (_what, start) => {
    // On a fake clock: the limit runs out when the test moves the proxy's time, whatever the machine's load.
    const clock = new FakeClock(Date.parse('2026-01-05T09:00:00Z'));
    const { baseUrl, reached } = await start();
    const proxy = realProxy(baseUrl, 200, clock);
    const started = clock.now();
    const answer = page(proxy, 'GET', '/voice/browser-sessions');
    await reached;
    const response = await settleOnClock(clock, answer, 200);
    expect(response.status).toBe(504);
    expect(response.json).toMatchObject({ code: 'upstream_timeout' });
    expect(clock.now() - started).toBe(200);
  });

  it('an upstream 5xx to a mutation stays a 5xx with its code and Retry-After', async () => {
    const failing: Fetch = async () => Response.json({ error: 'try later', code: 'provider_error' }, { status: 503, headers: { 'Retry-After': '5' } });
    const h = harness({ wrap: () => failing });
    const response = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ error: 'try later', code: 'provider_error' });
    expect(response.headers.get('retry-after')).toBe('5');
  });

  it('a service that redirects (a misconfigured base URL): not followed; a read is 503 upstream_unavailable, a mutation 504 with its code', async () => {
    const hits: string[] = [];
    const redirecting: Server = createServer((request, response) => {
      hits.push(`${request.method} ${request.url}`);
      response.writeHead(307, { location: 'http://127.0.0.1:9/elsewhere' });
      response.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => redirecting.close(resolve)));
    const address = redirecting.address();
    const proxy = realProxy(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api`);

    const read = await page(proxy, 'GET', '/voice/browser-sessions');
    const create = await page(proxy, 'POST', '/voice/browser-sessions', {});

    expect(read.status).toBe(503);
    expect(read.json).toMatchObject({ code: 'upstream_unavailable' });
    expect(create.status).toBe(504);
    expect(create.json).toMatchObject({ code: 'upstream_outcome_unknown' });
    // One request each, none to the Location.
    expect(hits).toEqual(['GET /api/v1/voice/browser-sessions?externalSubject=alice', 'POST /api/v1/voice/agents']);
  });
});
