import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRecord, withCalls } from '../support/calls-overlay.js';
import { createHarness, createSession, type Harness } from '../support/harness.js';

/**
 * Thousands of malformed requests at every route (fast-check): whatever the method, path, id, headers or
 * body, the proxy answers, never with a 5xx, and every rejection is a 4xx JSON body with a `code`.
 */

let h: Harness;
let sessionId = '';

beforeAll(async () => {
  h = createHarness({ wrap: withCalls(new Map([['bc_alice', callRecord('bc_alice', { externalSubject: 'alice' })]])), rateLimit: { perMinute: 1_000_000, perHour: 1_000_000 } });
  sessionId = (await createSession(h, 'alice')).session.id;
});

afterAll(async () => {
  await h.close();
});

/** Printable Latin-1, the widest a header value can be. */
const headerValue = fc.stringMatching(/^[\x20-\x7e\xa0-\xff]{0,140}$/);

const id = fc.oneof(
  fc.constantFrom(() => sessionId, () => 'bc_alice', () => 'bs_unknown', () => '', () => '..', () => '%2e%2e', () => 'a%2Fb', () => '%00', () => 'x'.repeat(300)).map((make) => make()),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.webSegment(),
);

const path = fc.oneof(
  fc.constantFrom('/voice/browser-sessions', '/voice/browser-calls', '/voice', '/voice/', '/voice/browser-sessions/', '/voice/agents', '/voice/browser-calls/x/hangup/extra'),
  id.map((value) => `/voice/browser-sessions/${value}`),
  id.map((value) => `/voice/browser-calls/${value}`),
  id.map((value) => `/voice/browser-calls/${value}/hangup`),
  fc.webPath().map((value) => `/voice${value}`),
);

const query = fc.option(
  fc.oneof(
    fc.webQueryParameters().map((value) => `?${value}`),
    // Glued to the path: a request just outside /voice reaching a handler mounted on a wider prefix.
    fc.webQueryParameters(),
  ),
  { nil: undefined },
);

const e164ish = fc.oneof(fc.constantFrom('+12025550100', '+12025550199', '+0', '+', '12025550100', '+1202555010012345'), fc.string({ maxLength: 20 }));

const callish = fc.record(
  {
    sessionId: fc.oneof(id, fc.anything()),
    from: fc.oneof(e164ish, fc.anything()),
    to: fc.oneof(e164ish, fc.anything()),
    maxDurationSeconds: fc.oneof(fc.integer(), fc.double(), fc.string()),
    record: fc.anything(),
    customData: fc.oneof(fc.dictionary(fc.string({ maxLength: 130 }), fc.string({ maxLength: 1100 }), { maxKeys: 40 }), fc.anything()),
    externalSubject: fc.string(),
  },
  { requiredKeys: [] },
);

const body = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('', '{', '[]', 'null', '"x"', '{}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
  fc.json(),
  fc.string({ maxLength: 200 }),
  callish.map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
);

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'),
  path,
  query,
  user: fc.constantFrom('alice', 'bob', undefined),
  idempotencyKey: fc.option(fc.oneof(headerValue, fc.constantFrom('k1', ' ', 'k'.repeat(128), 'k'.repeat(129))), { nil: undefined }),
  contentType: fc.option(fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'), { nil: undefined }),
  fetchSite: fc.option(fc.constantFrom('same-origin', 'same-site', 'cross-site', 'none', 'bogus'), { nil: undefined }),
  origin: fc.option(fc.oneof(fc.constantFrom('http://app.test', 'null', 'https://evil.example'), headerValue), { nil: undefined }),
  body,
});

describe('the proxy under malformed requests', () => {
  it('never answers 5xx and rejects with a 4xx JSON body with a code', async () => {
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers = new Headers();
        if (r.user) headers.set('x-test-user', r.user);
        if (r.idempotencyKey !== undefined) headers.set('idempotency-key', r.idempotencyKey);
        if (r.contentType) headers.set('content-type', r.contentType);
        if (r.fetchSite) headers.set('sec-fetch-site', r.fetchSite);
        if (r.origin !== undefined) headers.set('origin', r.origin);
        const withBody = r.method !== 'GET' && r.method !== 'HEAD';
        const url = `http://app.test${r.path}${r.query ?? ''}`;
        const response = await h.proxy(new Request(url, { method: r.method, headers, body: withBody ? r.body : undefined }));
        const text = await response.text();
        expect(response.status, `${r.method} ${url}`).toBeLessThan(500);
        expect(text).not.toContain(h.apiKey);
        expect(response.headers.get('cache-control')).toBe('no-store');
        if (response.status >= 400 && r.method !== 'HEAD') {
          rejected += 1;
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          expect(JSON.parse(text), `${r.method} ${url}`).toEqual(expect.objectContaining({ error: expect.any(String), code: expect.stringMatching(/^[a-z][a-z0-9_]*$/) }));
        }
      }),
      { numRuns: 3000 },
    );
    expect(rejected).toBeGreaterThan(1000);
  }, 60_000);
});
