import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDemoApp } from '../../../demo/server/app.js';
import { DEFAULT_SIM_API_KEY } from '../../../simulator/config.js';
import { createVoiceProxy } from '../../../server-proxy/setup/proxy.js';
import { demoSecurityHeaders } from '../../../demo/server/security-headers.js';
import type { VoiceService } from '../../../simulator/service/voice-service.js';
import { callRecord, withCalls } from '../../server-proxy/support/calls-overlay.js';
import { API_KEY, BASE_URL, createSimulator, testAuthenticate, type Fetch } from '../../server-proxy/support/harness.js';
import { createQueue, SECRET, webhook, webhookRequest } from '../../server-proxy/support/queue-support.js';

/**
 * Every answer the demo server gives, walked one by one: each route in its success and error forms, the
 * login, and every file of the built demo and library. The persistent key is in none of them, every answer
 * under `/voice` and `/auth` is `no-store`, and every answer carries the demo's security headers.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEMO = join(ROOT, 'dist/demo');
const LIB = join(ROOT, 'lib/dist');
/** Both keys the page must never see: the tests' and the simulator's default (what `npm start` holds). */
const KEYS = [API_KEY, DEFAULT_SIM_API_KEY];

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let service: VoiceService;
let app: Hono;
let cookie = '';
let queueId = '';
const lines: string[] = [];

/**
 * A fresh clone runs the unit tests before its build, so this file builds what it walks: the library and the demo
 * only (the server and the simulator are not served here), and the build's later run skips what is current. On a
 * busy machine that is minutes of real work; the limit is only for a build that hangs.
 */
const BUILD_LIMIT_MS = 20 * 60_000;

beforeAll(async () => {
  const missing = [...(existsSync(join(LIB, 'voice-browser.min.js')) ? [] : ['build:lib']), ...(existsSync(join(DEMO, 'index.html')) ? [] : ['build:demo'])];
  if (missing.length > 0) execFileSync('npm', ['run', 'build', '--', ...missing], { cwd: ROOT, stdio: 'inherit', timeout: BUILD_LIMIT_MS });
  const simulator = createSimulator();
  service = simulator.service;
  const fetch: Fetch = withCalls(new Map([['bc_alice', callRecord('bc_alice', { externalSubject: 'demo:alice' })]]))(simulator.fetch);
  queueId = await createQueue(simulator.fetch, 'Support');
  app = createDemoApp({
    voice: { baseUrl: BASE_URL, apiKey: API_KEY },
    sessionSecret: 'a-session-secret-that-is-long-enough-0123456789',
    demoRoot: DEMO,
    libRoot: LIB,
    fetch,
    rateLimit: { perMinute: 1000 },
    log: (line) => lines.push(line),
    queues: { notifySecret: SECRET, queuesFor: () => [queueId] },
  });
  const login = await app.fetch(new Request('http://app.test/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"alice"}' }));
  cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}, BUILD_LIMIT_MS + 60_000);

afterAll(async () => {
  await service.close();
});

interface Seen {
  status: number;
  headers: Headers;
  body: string;
}

/** An answer as {@link get} reads it. */
const readAnswer = async (response: Response): Promise<Seen> => ({ status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()).toString('latin1') });

async function get(method: string, path: string, init: { body?: string; headers?: Record<string, string>; anonymous?: boolean } = {}): Promise<Seen> {
  const headers = new Headers(init.headers);
  if (!init.anonymous) headers.set('cookie', cookie);
  if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return readAnswer(await app.fetch(new Request(`http://app.test${path}`, { method, headers, body: init.body })));
}

function expectNoKey(seen: Seen, what: string): void {
  for (const key of KEYS) {
    expect(seen.body.includes(key), `${what}: body`).toBe(false);
    for (const [name, value] of seen.headers) expect(`${name}: ${value}`.includes(key), `${what}: header ${name}`).toBe(false);
  }
}

/** The whole set, as the demo's middleware puts it on an empty answer: on every answer alike, whoever built it. */
const SECURITY_HEADERS = Object.fromEntries((await new Hono().use(demoSecurityHeaders(BASE_URL)).get('/', (c) => c.body(null)).request('/')).headers);

function expectSecurityHeaders(seen: Seen, what: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(seen.headers.get(name), `${what}: ${name}`).toBe(value);
  const csp = seen.headers.get('content-security-policy') ?? '';
  expect(csp, what).toContain("script-src 'self'");
  expect(csp, what).toContain("default-src 'self'");
  expect(csp, what).not.toContain('unsafe-eval');
  expect(csp, what).not.toContain('unsafe-inline');
  expect(seen.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(seen.headers.get('referrer-policy'), what).toBe('no-referrer');
}

describe('every file of the built demo and library, as served', () => {
  it('carries no key and the security headers', async () => {
    const files = [...filesUnder(DEMO).map((file) => `/${relative(DEMO, file)}`), ...filesUnder(LIB).map((file) => `/lib/${relative(LIB, file)}`)];
    expect(files).toContain('/index.html');
    expect(files).toContain('/lib/voice-browser.min.js');
    for (const path of [...files, '/', '/some/client/route']) {
      const seen = await get('GET', path.split('\\').join('/'));
      expect(seen.status, path).toBe(200);
      expectNoKey(seen, path);
      expectSecurityHeaders(seen, path);
    }
  });

  it('allows the page to reach the service’s SIP WebSocket and nothing else off-site', async () => {
    const csp = (await get('GET', '/')).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self' ws://sim.test");
    expect(csp).toContain("frame-ancestors 'none'");
  });
});

describe('every /voice and /auth answer, success and error', () => {
  it('carries no key, is no-store, and has the security headers', async () => {
    const created = await get('POST', '/voice/browser-sessions', { body: '{}' });
    expect(created.status).toBe(201);
    const sessionId = (JSON.parse(created.body) as { session: { id: string } }).session.id;
    const call = JSON.stringify({ sessionId, from: '+12025550199', to: '+12025550100' });
    const answers: Array<[string, Seen]> = [
      ['created session', created],
      ['current session', await get('GET', '/voice/browser-sessions')],
      ['own session', await get('GET', `/voice/browser-sessions/${sessionId}`)],
      ['call refused upstream', await get('POST', '/voice/browser-calls', { body: call, headers: { 'Idempotency-Key': 'k1' } })],
      ['own call', await get('GET', '/voice/browser-calls/bc_alice')],
      ['hangup', await get('POST', '/voice/browser-calls/bc_alice/hangup', { body: '{}' })],
      ['unknown call', await get('GET', '/voice/browser-calls/bc_nope')],
      ['invalid id', await get('GET', '/voice/browser-sessions/a%2Fb')],
      ['bad input', await get('POST', '/voice/browser-calls', { body: '{"to":"x"}', headers: { 'Idempotency-Key': 'k2' } })],
      ['broken JSON', await get('POST', '/voice/browser-sessions', { body: '{' })],
      ['missing key header', await get('POST', '/voice/browser-calls', { body: call })],
      ['too large', await get('POST', '/voice/browser-calls', { body: JSON.stringify({ pad: 'x'.repeat(70_000) }), headers: { 'Idempotency-Key': 'k3' } })],
      ['cross-site', await get('POST', '/voice/browser-sessions', { body: '{}', headers: { 'Sec-Fetch-Site': 'cross-site' } })],
      ['no route', await get('GET', '/voice/nothing-here')],
      ['the bare prefix', await get('GET', '/voice')],
      ['wrong method', await get('PUT', '/voice/browser-sessions', { body: '{}' })],
      ['not logged in', await get('GET', '/voice/browser-sessions', { anonymous: true })],
      ['me', await get('GET', '/auth/me')],
      ['me, anonymous', await get('GET', '/auth/me', { anonymous: true })],
      ['bad login', await get('POST', '/auth/login', { body: '{"username":""}', anonymous: true })],
      ['queues', await get('GET', '/voice/queues')],
      ['dequeue refused upstream', await get('POST', `/voice/queues/${queueId}/dequeue`, { body: '{}' })],
      ['dequeue of a queue not allowed', await get('POST', '/voice/queues/q_other/dequeue', { body: '{}' })],
      ['own queue calls', await get('GET', '/voice/calls')],
      ['unknown queue call', await get('GET', '/voice/calls/c_nope')],
      ['unknown queue call hung up', await get('POST', '/voice/calls/c_nope/hangup', { body: '{}' })],
      ['webhook', await readAnswer(await app.fetch(webhookRequest(webhook({ queueId }))))],
      ['webhook unsigned', await readAnswer(await app.fetch(webhookRequest(webhook({ queueId }), { secret: null })))],
      ['ended session', await get('DELETE', `/voice/browser-sessions/${sessionId}`, { body: '{}' })],
      ['logout', await get('POST', '/auth/logout', { body: '{}' })],
    ];
    const statuses = new Set(answers.map(([, seen]) => seen.status));
    for (const status of [200, 201, 202, 204, 400, 401, 403, 404, 409, 413]) expect(statuses).toContain(status);
    for (const [what, seen] of answers) {
      expectNoKey(seen, what);
      expectSecurityHeaders(seen, what);
      expect(seen.headers.get('cache-control'), what).toBe('no-store');
      if (seen.status >= 400) expect(JSON.parse(seen.body), what).toEqual({ error: expect.any(String), code: expect.stringMatching(/^[a-z_]+$/) });
    }
  });
});

describe('the queue event stream', () => {
  it('carries no key and the security headers, and is no-store', async () => {
    const response = await app.fetch(new Request('http://app.test/voice/queue-events', { headers: { cookie } }));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    await reader.cancel();
    const opened: Seen = { status: response.status, headers: response.headers, body: new TextDecoder().decode(value) };
    expect(opened.status).toBe(200);
    expect(opened.body).toContain('event: snapshot');
    expectNoKey(opened, 'event stream');
    expectSecurityHeaders(opened, 'event stream');
    expect(opened.headers.get('cache-control')).toBe('no-store, no-transform');
  });
});

describe('logs', () => {
  it('never carry the key: refused key, unexpected errors and upstream echoes are redacted', async () => {
    const logged: string[] = [];
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // An upstream that refuses the key and, carelessly, quotes it back.
    const echoing: Fetch = async (_input, init) => {
      const key = new Headers(init?.headers).get('x-api-key') ?? '';
      return Response.json({ error: `key ${key} is not valid`, code: 'invalid_credentials', echo: key }, { status: 401 });
    };
    const proxy = createVoiceProxy({ baseUrl: BASE_URL, apiKey: API_KEY, authenticate: testAuthenticate, fetch: echoing, log: (line) => logged.push(line) });
    const refused = await proxy(new Request('http://app.test/voice/browser-sessions', { headers: { 'x-test-user': 'alice' } }));
    expect(refused.status).toBe(403);

    const quoting: Fetch = async (_input, init) => Response.json({ error: 'no such call', code: 'not_found', note: new Headers(init?.headers).get('x-api-key') }, { status: 409 });
    const relayed = await createVoiceProxy({ baseUrl: BASE_URL, apiKey: API_KEY, authenticate: testAuthenticate, fetch: quoting, log: (line) => logged.push(line) })(
      new Request('http://app.test/voice/browser-sessions', { headers: { 'x-test-user': 'alice' } }),
    );
    expect(await relayed.text()).toContain('[redacted]');

    // An integrator's authenticate that fails with the key in its message (a misconfigured secret store).
    const failing = createVoiceProxy({
      baseUrl: BASE_URL,
      apiKey: API_KEY,
      authenticate: () => {
        throw new Error(`could not read session store with ${API_KEY}`);
      },
      log: (line) => logged.push(line),
    });
    const crashed = await failing(new Request('http://app.test/voice/browser-sessions'));
    expect(crashed.status).toBe(500);
    expect(await crashed.text()).not.toContain(API_KEY);

    const all = [...logged, ...lines, ...consoleError.mock.calls.map((args) => args.map(String).join(' '))].join('\n');
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(all).toContain('[redacted]');
    expect(all).not.toContain(API_KEY);
    consoleError.mockRestore();
  });
});
