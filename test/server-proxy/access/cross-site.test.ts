import { afterEach, describe, expect, it } from 'vitest';
import { createDemoApp } from '../../../demo/server/app.js';
import { createVoiceProxy } from '../../../server-proxy/setup/proxy.js';
import type { VoiceService } from '../../../simulator/service/voice-service.js';
import { callRecord, withCalls } from '../support/calls-overlay.js';
import { API_KEY, BASE_URL, createHarness, createSession, createSimulator, send, type Harness } from '../support/harness.js';

/**
 * Cross-site refusal (Fetch Metadata, then Origin) on every route that changes something: a page on
 * another site cannot use the user's cookies to start, end or hang up anything, nor log them in or out.
 */

let harnesses: Harness[] = [];
let services: VoiceService[] = [];
afterEach(async () => {
  await Promise.all([...harnesses.map((h) => h.close()), ...services.map((s) => s.close())]);
  harnesses = [];
  services = [];
});

/** A `fetch` to a fresh in-process simulator, closed after the test. */
function simulatorFetch(): typeof fetch {
  const simulator = createSimulator();
  services.push(simulator.service);
  return simulator.fetch;
}

async function world(): Promise<{ h: Harness; sessionId: string }> {
  const h = createHarness({ wrap: withCalls(new Map([['bc_alice', callRecord('bc_alice', { externalSubject: 'alice' })]])), rateLimit: false });
  harnesses.push(h);
  return { h, sessionId: (await createSession(h, 'alice')).session.id };
}

const mutations = (sessionId: string): Array<[string, string, unknown, Record<string, string>]> => [
  ['POST', '/voice/browser-sessions', {}, {}],
  ['DELETE', `/voice/browser-sessions/${sessionId}`, {}, {}],
  ['POST', '/voice/browser-calls', { sessionId, from: '+12025550199', to: '+12025550100' }, { 'Idempotency-Key': 'k1' }],
  ['POST', '/voice/browser-calls/bc_alice/hangup', {}, {}],
];

const crossSite: Array<[string, Record<string, string>]> = [
  ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'Sec-Fetch-Site': 'same-site' }],
  ['Sec-Fetch-Site: none', { 'Sec-Fetch-Site': 'none' }],
  ['Sec-Fetch-Site: cross-site, even with the page’s own Origin', { 'Sec-Fetch-Site': 'cross-site', Origin: 'http://app.test' }],
  ['a foreign Origin without Fetch Metadata', { Origin: 'https://evil.example' }],
  ['Origin: null (a sandboxed frame or data: page)', { Origin: 'null' }],
];

describe('every mutating /voice route', () => {
  it.each(crossSite)('refuses %s with 403 cross_site_request, asking nothing upstream', async (_what, headers) => {
    const { h, sessionId } = await world();
    const before = h.seen.length;
    for (const [method, path, body, extra] of mutations(sessionId)) {
      const response = await send(h, method, path, { user: 'alice', body, headers: { ...extra, ...headers } });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.json).toEqual({ error: expect.any(String), code: 'cross_site_request' });
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
    expect(h.seen.slice(before)).toEqual([]);
    expect(h.service.getSession(API_KEY, sessionId).status).toBe('active');
  });

  it.each([
    ['Sec-Fetch-Site: same-origin', { 'Sec-Fetch-Site': 'same-origin' }],
    ['the page’s own Origin without Fetch Metadata', { Origin: 'http://app.test' }],
    ['neither header (not a browser page)', {}],
  ])('lets %s through', async (_what, headers) => {
    const { h, sessionId } = await world();
    // Ending the session first, then creating one: both must pass.
    for (const [method, path, body, extra] of mutations(sessionId).slice(0, 2).reverse()) {
      const response = await send(h, method, path, { user: 'alice', body, headers: { ...extra, ...headers } });
      expect(response.status).toBeLessThan(300);
    }
  });

  it('lets reads through from anywhere: they change nothing, and ownership still holds', async () => {
    const { h, sessionId } = await world();
    const response = await send(h, 'GET', `/voice/browser-sessions/${sessionId}`, { user: 'alice', headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect(response.status).toBe(200);
  });

  it('accepts an origin the integrator trusts (a TLS terminator in front of the proxy)', async () => {
    const trusting = createVoiceProxy({
      baseUrl: BASE_URL,
      apiKey: API_KEY,
      authenticate: () => ({ id: 'alice' }),
      trustedOrigins: ['https://app.example.com'],
      fetch: simulatorFetch(),
    });
    const request = (origin: string) => new Request('http://internal:8080/voice/browser-sessions', { method: 'POST', headers: { Origin: origin }, body: '{}' });
    expect((await trusting(request('https://app.example.com'))).status).toBe(201);
    expect((await trusting(request('https://evil.example'))).status).toBe(403);
  });
});

describe('the demo login', () => {
  const app = () =>
    createDemoApp({ voice: { baseUrl: BASE_URL, apiKey: API_KEY }, sessionSecret: 's'.repeat(40), demoRoot: '.', libRoot: '.', fetch: simulatorFetch() });

  it.each(['/auth/login', '/auth/logout'])('refuses a cross-site POST %s without setting or clearing the cookie', async (path) => {
    const response = await app().fetch(
      new Request(`http://app.test${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' }, body: '{"username":"mallory"}' }),
    );
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: expect.any(String), code: 'cross_site_request' });
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('logs in from its own page', async () => {
    const response = await app().fetch(
      new Request('http://app.test/auth/login', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'same-origin' }, body: '{"username":"alice"}' }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(/^vb_user=/);
  });
});
