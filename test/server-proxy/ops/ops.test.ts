import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProxyMetrics } from '../../../server-proxy/ops/metrics.js';
import { createOpsHandler } from '../../../server-proxy/ops/ops-handler.js';
import { createRedisBudgetStore } from '../../../server-proxy/redis/redis-budget-store.js';
import { defaultLogger, type ProxyLogger } from '../../../server-proxy/ops/request-log.js';
import { routeTemplate } from '../../../server-proxy/routes/routes.js';
import { createHarness, send, type Harness, type HarnessOptions } from '../support/harness.js';
import { startRedis } from '../support/redis-server.js';

/**
 * What an operator gets: `/healthz`, `/readyz` (the service, and Redis when configured), `/metrics` in the
 * Prometheus text format by prom-client, and one structured line per request with the key in none.
 */

let harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  harnesses = [];
  vi.restoreAllMocks();
});

function setup(options: HarnessOptions = {}): Harness {
  const h = createHarness(options);
  harnesses.push(h);
  return h;
}

const get = async (handler: (request: Request) => Promise<Response>, path: string) => {
  const response = await handler(new Request(`http://ops.test${path}`));
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

/** A logger that keeps each line's fields, as pino would write them. */
function capturingLogger(): ProxyLogger & { lines: Array<Record<string, unknown>>; notices: string[] } {
  const lines: Array<Record<string, unknown>> = [];
  const notices: string[] = [];
  return { lines, notices, info: (fields) => void lines.push({ ...fields }), warn: (message) => void notices.push(message) };
}

describe('health and readiness', () => {
  it('answers /healthz while the process runs, and /readyz once the service answers', async () => {
    const h = setup();
    const ops = createOpsHandler(h.proxy);
    expect(await get(ops, '/healthz')).toMatchObject({ status: 200, text: '{"status":"ok"}' });
    // No traffic yet: one probe read proves the service there.
    expect(JSON.parse((await get(ops, '/readyz')).text)).toEqual({ status: 'ready', checks: { service: 'ok' } });
    expect(h.seen.filter((request) => request.path === '/browser-sessions')).toHaveLength(1);
    // Under a prefix too, and only GET.
    expect((await get(ops, '/ops/readyz')).status).toBe(200);
    expect((await ops(new Request('http://ops.test/healthz', { method: 'POST' }))).status).toBe(405);
  });

  it('answers /readyz 503 naming the service when it does not answer', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const h = setup({ wrap: () => async () => Promise.reject(new TypeError('fetch failed', { cause: refused })) });
    const answer = await get(createOpsHandler(h.proxy), '/readyz');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({ status: 'not_ready', checks: { service: expect.stringContaining('no answer') } });
  });

  it('answers /readyz 503 naming the budget store while Redis is down, and ready again once it is back', async () => {
    const redis = await startRedis();
    const store = await createRedisBudgetStore({ url: redis.url });
    try {
      const h = setup({ budget: { store } });
      const ops = createOpsHandler(h.proxy);
      expect(JSON.parse((await get(ops, '/readyz')).text)).toEqual({ status: 'ready', checks: { service: 'ok', budgetStore: 'ok' } });
      await redis.stop();
      const down = await get(ops, '/readyz');
      expect(down.status).toBe(503);
      expect(JSON.parse(down.text).checks.budgetStore).not.toBe('ok');
    } finally {
      await store.close?.();
      await redis.stop();
    }
  });
});

describe('/metrics', () => {
  it("counts the service's requests by route and status, times them, and shows the key's budget", async () => {
    const h = setup();
    await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });
    await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' });
    const answer = await get(createOpsHandler(h.proxy), '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.type).toContain('text/plain');
    expect(answer.text).toContain('voice_proxy_upstream_requests_total{route="/browser-sessions",method="POST",status="201"} 1');
    expect(answer.text).toContain('voice_proxy_upstream_requests_total{route="/browser-sessions",method="GET",status="200"} 1');
    expect(answer.text).toMatch(/voice_proxy_upstream_request_duration_seconds_count\{route="\/browser-sessions",method="GET"\} 1/);
    expect(answer.text).toContain('voice_proxy_quota_per_minute 100');
    expect(answer.text).toContain('voice_proxy_calls_in_progress 0');
    expect(answer.text).toContain('voice_proxy_call_places 1');
    expect(answer.text).toMatch(/voice_proxy_quota_remaining \d+/);
    // No id of a user's resource becomes a label.
    expect(answer.text).not.toMatch(/route="[^"]*(bs|bc|ag)_/);
  });

  it("counts the proxy's own refusals by code and the service's 429s by route", async () => {
    const h = setup({
      rateLimit: { perMinute: 1 },
      wrap: (sim) => async (input, init) => {
        if (String(input).includes('/browser-sessions?')) return Response.json({ error: 'slow down', code: 'rate_limited' }, { status: 429, headers: { 'retry-after': '7' } });
        return sim(input, init);
      },
    });
    await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' });
    await send(h, 'GET', '/voice/browser-sessions', { user: 'alice' });
    const text = (await get(createOpsHandler(h.proxy), '/metrics')).text;
    expect(text).toContain('voice_proxy_service_rate_limited_total{route="/browser-sessions"} 1');
    expect(text).toContain('voice_proxy_refusals_total{code="rate_limited"} 1');
  });

  it("shows the key's figures as NaN until the service has answered, never a false 0; the readiness probe teaches them", async () => {
    const h = setup();
    const ops = createOpsHandler(h.proxy);
    const before = (await get(ops, '/metrics')).text;
    // prom-client writes NaN as `Nan`; Prometheus reads it in any case.
    expect(before).toMatch(/^voice_proxy_quota_per_minute nan$/im);
    expect(before).toMatch(/^voice_proxy_call_places nan$/im);
    await get(ops, '/readyz');
    expect((await get(ops, '/metrics')).text).toContain('voice_proxy_quota_per_minute 100');
  });

  it('reads the budget once a scrape, for all its gauges', async () => {
    let reads = 0;
    const metrics = createProxyMetrics({
      snapshot: async () => {
        reads += 1;
        return { reading: null, callsInProgress: 2, now: 0, places: 3 };
      },
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain('voice_proxy_calls_in_progress 2');
    expect(text).toContain('voice_proxy_call_places 3');
    expect(reads).toBe(1);
    await metrics.registry.metrics();
    expect(reads).toBe(2);
  });

  it('is not served when turned off', async () => {
    const h = setup();
    expect((await get(createOpsHandler(h.proxy, { metrics: false }), '/metrics')).status).toBe(404);
  });
});

describe('the request log', () => {
  it('writes one line per request: its id, the user hashed, the route template, both statuses and the time (answered as Server-Timing too)', async () => {
    const logger = capturingLogger();
    const h = setup({ logger });
    const created = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {}, headers: { 'x-request-id': 'req-42' } });
    expect(created.headers.get('x-request-id')).toBe('req-42');
    // The proxy's own time, as devtools show it.
    expect(created.headers.get('server-timing')).toMatch(/^proxy;dur=\d+(\.\d)?$/);
    const sessionId = (created.json.session as { id: string }).id;
    const read = await send(h, 'GET', `/voice/browser-sessions/${sessionId}`, { user: 'alice' });
    await send(h, 'GET', '/voice/browser-sessions');

    expect(logger.lines).toHaveLength(3);
    const [first, second, nobody] = logger.lines;
    expect(first).toMatchObject({ reqId: 'req-42', method: 'POST', route: '/browser-sessions', status: 201, upstreamStatus: 201, ms: expect.any(Number) });
    expect(second).toMatchObject({ reqId: read.headers.get('x-request-id'), route: '/browser-sessions/:id', status: 200, upstreamStatus: 200 });
    expect(second?.user).toBe(first?.user);
    expect(String(first?.user)).not.toContain('alice');
    // Refused before the service: no user, no upstream status.
    expect(nobody).toMatchObject({ status: 401, upstreamStatus: null });
    expect(nobody).not.toHaveProperty('user');
  });

  it("clears the key from every line the default logger writes, and sends the proxy's notices through it", () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const logger = defaultLogger(['vk_test_secretsecretsecret'], 'info');
    logger.info({ route: '/browser-calls/:id', note: 'the key vk_test_secretsecretsecret leaked here' }, 'request');
    logger.warn('voice proxy: the service refused vk_test_secretsecretsecret');
    expect(written).toHaveLength(2);
    for (const line of written) expect(line).not.toContain('vk_test_secretsecretsecret');
    expect(JSON.parse(written[0] ?? '')).toMatchObject({ level: 30, msg: 'request', route: '/browser-calls/:id', note: 'the key [redacted] leaked here' });
    expect(JSON.parse(written[1] ?? '')).toMatchObject({ level: 40, msg: 'voice proxy: the service refused [redacted]' });
  });

  it('names routes by template, never by id', () => {
    expect(routeTemplate('/browser-calls/bc_123/hangup')).toBe('/browser-calls/:id/hangup');
    expect(routeTemplate('/browser-sessions/bs_9')).toBe('/browser-sessions/:id');
    expect(routeTemplate('/browser-sessions')).toBe('/browser-sessions');
  });
});
