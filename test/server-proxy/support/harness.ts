import { expect } from 'vitest';
import { Hono } from 'hono';
import { createVoiceProxy, type ProxyUser, type VoiceProxy, type VoiceProxyOptions } from '../../../server-proxy/setup/proxy.js';
import type { KeyRegistry } from '../../../simulator/service/accounts.js';
import { createRestApp, type ApiKeyRecord, type Scope } from '../../../simulator/http/rest.js';
import type { VoiceService } from '../../../simulator/service/voice-service.js';
import { createTestService } from '../../simulator/support/test-service.js';

/**
 * The proxy wired to the real simulated service in-process (no ports): the proxy's `fetch` calls the
 * simulator's Hono app, and every upstream request is recorded as the service received it.
 */

/** Shaped like a real key (fixed prefix plus 32 alphanumerics, as the service issues them), so a leak is easy to spot. */
export const API_KEY = 'vk_test_Q7m2Xr9LpA4sD8fK1hJ6nB3vC5zT0wYe';
export const BASE_URL = 'http://sim.test/api';
export const ALL_SCOPES: readonly Scope[] = ['voice_calls.read', 'voice_calls.write'];

/** One request as it reached the service. */
export interface SeenRequest {
  method: string;
  url: URL;
  /** Path below `/api/v1/voice`. */
  path: string;
  headers: Headers;
  body: unknown;
}

export type Fetch = typeof fetch;

/** Turns the simulator's app into a `fetch`, as the proxy will call it. */
export function appFetch(app: Hono): Fetch {
  return async (input, init) => app.fetch(new Request(input, init));
}

/** The page's test login: header `x-test-user: <id>` is that user; no header is nobody. */
export function testAuthenticate(request: Request): ProxyUser | null {
  const id = request.headers.get('x-test-user');
  return id ? { id, name: `User ${id}` } : null;
}

export interface HarnessOptions {
  /** The key the proxy holds (default {@link API_KEY}). */
  apiKey?: string;
  /** Keys the service accepts (default {@link API_KEY} with both voice scopes), or its accounts and keys. */
  keys?: ReadonlyMap<string, ApiKeyRecord> | KeyRegistry;
  /** Wraps the fetch that reaches the simulator, to script faults or overlay resources. */
  wrap?: (simulator: Fetch) => Fetch;
  timeoutMs?: number;
  /** How long `revokeSessions` waits for a read proving a call ended (default: the proxy's own). */
  revokeWaitMs?: number;
  /** Per-user limits of the proxy (default: the proxy's own defaults). */
  rateLimit?: VoiceProxyOptions['rateLimit'];
  /** The proxy's log sink (default: `console.error`). */
  log?: (line: string) => void;
  /** Headers the proxy puts on every answer (default none). */
  headers?: VoiceProxyOptions['headers'];
  /** The proxy's request logger (default none, so a test's output is its own). */
  logger?: VoiceProxyOptions['logger'];
  /** The key's budget (default: the proxy's own, in memory). */
  budget?: VoiceProxyOptions['budget'];
  /** The support desk's queues (default none: the queue routes answer as unknown ones). */
  queues?: VoiceProxyOptions['queues'];
  /** The proxy's start-up read of the service (default off, so `seen` holds only what a test's requests sent). */
  checkService?: boolean;
  /** The proxy's clock (default: the real one); a fake one lets a test about time move it instead of waiting. */
  clock?: VoiceProxyOptions['clock'];
}

export interface Harness {
  service: VoiceService;
  proxy: VoiceProxy;
  /** Every request the proxy sent upstream, in order. */
  seen: SeenRequest[];
  /** Reaches the (wrapped) simulator as the service's own client would, unrecorded: a test's set-up. */
  simulator: Fetch;
  apiKey: string;
  close(): Promise<void>;
}

/** The simulated service and a `fetch` that reaches its REST app, mounted as server.ts mounts it. */
export function createSimulator(keys?: ReadonlyMap<string, ApiKeyRecord> | KeyRegistry): { service: VoiceService; fetch: Fetch } {
  const service = createTestService();
  const app = new Hono().route('/api/v1/voice', createRestApp(service, keys ?? new Map([[API_KEY, { scopes: ALL_SCOPES }]])));
  return { service, fetch: appFetch(app) };
}

export function createHarness(options: HarnessOptions = {}): Harness {
  const { service, fetch: simulator } = createSimulator(options.keys);
  const inner = options.wrap ? options.wrap(simulator) : simulator;
  const seen: SeenRequest[] = [];
  const recording: Fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const text = typeof init?.body === 'string' ? init.body : undefined;
    seen.push({
      method: init?.method ?? 'GET',
      url,
      path: url.pathname.replace(/^\/api\/v1\/voice/, ''),
      headers: new Headers(init?.headers),
      body: text === undefined ? undefined : (JSON.parse(text) as unknown),
    });
    return inner(input, init);
  };
  const apiKey = options.apiKey ?? API_KEY;
  const proxy = createVoiceProxy({
    baseUrl: BASE_URL,
    apiKey,
    authenticate: testAuthenticate,
    fetch: recording,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.revokeWaitMs === undefined ? {} : { revokeWaitMs: options.revokeWaitMs }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.queues === undefined ? {} : { queues: options.queues }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    logger: options.logger ?? false,
    checkService: options.checkService ?? false,
  });
  return { service, proxy, seen, simulator: inner, apiKey, close: () => service.close() };
}

export interface PageRequest {
  /** Logged-in user id, sent as `x-test-user`; omitted means nobody. */
  user?: string;
  headers?: Record<string, string>;
  /** A string is sent as is (for broken JSON); anything else as JSON. */
  body?: unknown;
}

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/**
 * Sends a page request to the proxy and checks the one rule every answer keeps: the persistent key is in
 * neither its body nor its headers.
 */
export async function send(h: Pick<Harness, 'proxy' | 'apiKey'>, method: string, path: string, request: PageRequest = {}): Promise<PageResponse> {
  const headers = new Headers(request.headers);
  if (request.user !== undefined) headers.set('x-test-user', request.user);
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const response = await h.proxy(new Request(`http://app.test${path}`, { method, headers, body }));
  const text = await response.text();
  expect(text).not.toContain(h.apiKey);
  for (const [name, value] of response.headers) expect(`${name}: ${value}`).not.toContain(h.apiKey);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left empty: the test asserts on `text` or `status`.
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The session and transport of a 201 from POST /voice/browser-sessions. */
export interface CreatedSession {
  session: { id: string; agentId: string; externalSubject: string; status: string };
  transport: { authorizationUsername: string; authorizationPassword: string; websocketUrl: string };
}

/** Logs `user` in a browser session through the proxy and returns it. */
export async function createSession(h: Harness, user: string): Promise<CreatedSession> {
  const response = await send(h, 'POST', '/voice/browser-sessions', { user, body: {} });
  expect(response.status).toBe(201);
  return response.json as unknown as CreatedSession;
}
