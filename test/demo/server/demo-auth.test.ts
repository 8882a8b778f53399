import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createDemoApp } from '../../../demo/server/app.js';
import type { VoiceService } from '../../../simulator/service/voice-service.js';
import { API_KEY, BASE_URL, createSimulator, type Fetch } from '../../server-proxy/support/harness.js';

/**
 * The demo login wired as the demo server wires it (app.ts): signed-cookie login at `/auth`, the proxy at
 * `/voice`, the simulated service behind it in-process.
 */

const HERE = fileURLToPath(new URL('.', import.meta.url));
const SECRET = 'a-session-secret-that-is-long-enough-0123456789';

let service: VoiceService;
let app: Hono;
let upstreamPaths: string[];

beforeEach(() => {
  const simulator = createSimulator();
  service = simulator.service;
  upstreamPaths = [];
  const recording: Fetch = async (input, init) => {
    upstreamPaths.push(`${init?.method ?? 'GET'} ${new URL(input instanceof Request ? input.url : String(input)).pathname}`);
    return simulator.fetch(input, init);
  };
  app = createDemoApp({
    voice: { baseUrl: BASE_URL, apiKey: API_KEY },
    sessionSecret: SECRET,
    // Never served: these tests touch only /auth and /voice; any existing folder will do.
    demoRoot: HERE,
    libRoot: HERE,
    fetch: recording,
  });
});

afterEach(async () => {
  await service.close();
});

interface Answer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

async function request(method: string, path: string, options: { cookie?: string; body?: unknown } = {}): Promise<Answer> {
  const headers = new Headers();
  if (options.cookie !== undefined) headers.set('cookie', options.cookie);
  if (options.body !== undefined) headers.set('content-type', 'application/json');
  const response = await app.fetch(
    new Request(`http://app.test${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }),
  );
  const text = await response.text();
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(SECRET);
  return { status: response.status, headers: response.headers, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Logs in and returns the `name=value` pair to send back as `Cookie`. */
async function login(username: string): Promise<string> {
  const response = await request('POST', '/auth/login', { body: { username } });
  expect(response.status).toBe(200);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const pair = setCookie.split(';')[0] ?? '';
  expect(pair).toMatch(/^vb_user=/);
  return pair;
}

describe('POST /auth/login', () => {
  it('sets a signed, HttpOnly, SameSite=Strict cookie that /auth/me accepts', async () => {
    const response = await request('POST', '/auth/login', { body: { username: 'alice' } });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ user: { name: 'alice' } });
    expect(response.headers.get('cache-control')).toBe('no-store');
    const setCookie = response.headers.get('set-cookie') ?? '';
    const attributes = setCookie.split(';').map((part) => part.trim().toLowerCase());
    expect(attributes).toContain('httponly');
    expect(attributes).toContain('samesite=strict');
    expect(attributes).toContain('path=/');
    // Signed: the value is more than the bare username.
    expect(setCookie).not.toMatch(/^vb_user=alice;/);

    const cookie = setCookie.split(';')[0] ?? '';
    const me = await request('GET', '/auth/me', { cookie });
    expect(me.status).toBe(200);
    expect(me.json).toEqual({ user: { name: 'alice' } });
  });

  it.each([[''], ['has space'], ['x'.repeat(65)], [42]])('refuses the username %j', async (username) => {
    const response = await request('POST', '/auth/login', { body: { username } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'invalid_input' });
    expect(response.headers.get('set-cookie')).toBeNull();
  });
});

describe('a tampered cookie', () => {
  it.each([
    ['another username under alice’s signature', (cookie: string) => cookie.replace('vb_user=alice.', 'vb_user=bob.')],
    ['a signature from another secret', (cookie: string) => cookie.replace(/\.[^.]+$/, `.${btoa('x'.repeat(32))}`)],
    ['an unsigned username', () => 'vb_user=alice'],
  ])('authenticates nobody: %s', async (_what, tamper) => {
    const good = await login('alice');
    // The good cookie is used (and remembered as verified) first: the tampered one must still be checked.
    expect((await request('GET', '/auth/me', { cookie: good })).status).toBe(200);
    const cookie = tamper(good);
    expect(cookie).not.toBe(good);

    const me = await request('GET', '/auth/me', { cookie });
    expect(me.status).toBe(200);
    expect(me.json).toEqual({ user: null });
    const voice = await request('GET', '/voice/browser-sessions', { cookie });
    expect(voice.status).toBe(401);
    expect(upstreamPaths).toHaveLength(0);
  });
});

describe('the voice routes behind the demo login', () => {
  it('use the logged-in username as the externalSubject', async () => {
    const cookie = await login('alice');
    const created = await request('POST', '/voice/browser-sessions', { cookie, body: {} });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ session: { externalSubject: 'demo:alice' } });
  });
});

describe('POST /auth/logout', () => {
  it('ends the user’s current browser session at the service and clears the cookie', async () => {
    const alice = await login('alice');
    const bob = await login('bob');
    const aliceSession = await request('POST', '/voice/browser-sessions', { cookie: alice, body: {} });
    const bobSession = await request('POST', '/voice/browser-sessions', { cookie: bob, body: {} });
    const aliceId = (aliceSession.json as { session: { id: string } }).session.id;
    const bobId = (bobSession.json as { session: { id: string } }).session.id;
    expect(service.getSession(API_KEY, aliceId).status).toBe('active');

    const response = await request('POST', '/auth/logout', { cookie: alice });

    expect(response.status).toBe(200);
    expect(response.json).toEqual({ user: null, revoked: true });
    expect(response.headers.get('set-cookie')).toMatch(/^vb_user=;.*max-age=0/i);
    expect(service.getSession(API_KEY, aliceId).status).toBe('ended');
    expect(service.getSession(API_KEY, bobId).status).toBe('active');
  });

  it('asks nothing of the service when nobody is logged in', async () => {
    const response = await request('POST', '/auth/logout');
    expect(response.status).toBe(200);
    expect(upstreamPaths).toHaveLength(0);
  });
});

describe('POST /auth/logout while the service is down', () => {
  it('still clears the cookie, says the session was not revoked, and logs why without the key', async () => {
    const lines: string[] = [];
    let down = false;
    const simulator = createSimulator();
    const failing: Fetch = async (input, init) => {
      if (down) throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
      return simulator.fetch(input, init);
    };
    app = createDemoApp({ voice: { baseUrl: BASE_URL, apiKey: API_KEY }, sessionSecret: SECRET, demoRoot: HERE, libRoot: HERE, fetch: failing, log: (line) => lines.push(line) });
    const alice = await login('alice');
    const created = await request('POST', '/voice/browser-sessions', { cookie: alice, body: {} });
    expect(created.status).toBe(201);
    down = true;

    const response = await request('POST', '/auth/logout', { cookie: alice });

    expect(response.status).toBe(200);
    expect(response.json).toEqual({ user: null, revoked: false });
    expect(response.headers.get('set-cookie')).toMatch(/^vb_user=;.*max-age=0/i);
    expect(lines.join('\n')).toMatch(/logout could not end the browser session.*upstream_unavailable/);
    expect(lines.join('\n')).not.toContain(API_KEY);
    await simulator.service.close();
  });

  it('clears the cookie of a user who has no session to revoke', async () => {
    const alice = await login('alice');
    const response = await request('POST', '/auth/logout', { cookie: alice });
    expect(response.json).toEqual({ user: null, revoked: true });
    expect(upstreamPaths).toEqual(['GET /api/v1/voice/browser-sessions']);
  });
});
