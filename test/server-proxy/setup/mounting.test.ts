import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { routePath } from '../../../server-proxy/routes/routes.js';
import { createHarness, type Harness } from '../support/harness.js';
import { useLoopbackServers } from '../support/loopback-server.js';

/**
 * The proxy answers under whatever prefix an app mounts it (docs/proxy.md, "Mounting it"): a
 * framework that keeps the prefix in the request (Hono's `app.all('/voice/*')`) and one that strips it
 * (Express's `app.use('/voice', ...)`, here a Node server that strips it the same way) reach the same routes.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
});
const serve = useLoopbackServers();

const asAlice = { 'x-test-user': 'alice', 'content-type': 'application/json' };

/** Creates a session and reads it back through `base` (the app's mount point), as a page would. */
async function sessionRoundTrip(fetchAt: (path: string, init?: RequestInit) => Promise<Response>, base: string) {
  const created = await fetchAt(`${base}/browser-sessions`, { method: 'POST', headers: asAlice, body: '{}' });
  expect(created.status).toBe(201);
  const { session } = (await created.json()) as { session: { id: string } };
  const read = await fetchAt(`${base}/browser-sessions/${session.id}`, { headers: asAlice });
  expect(read.status).toBe(200);
  const missing = await fetchAt(`${base}/browser-calls/bc_nope`, { headers: asAlice });
  expect(missing.status).toBe(404);
  return session.id;
}

describe('mounting the proxy', () => {
  it('routes by the path after any prefix, and only from a route segment on', () => {
    const path = (url: string) => routePath(new Request(url));
    expect(path('http://app.test/voice/browser-calls/bc_1/hangup')).toBe('/browser-calls/bc_1/hangup');
    expect(path('http://app.test/api/phone/browser-sessions?x=1')).toBe('/browser-sessions');
    expect(path('http://app.test/browser-sessions/bs_1')).toBe('/browser-sessions/bs_1');
    // An id that looks like a route segment stays an id: the first segment decides.
    expect(path('http://app.test/voice/browser-sessions/browser-calls')).toBe('/browser-sessions/browser-calls');
    expect(path('http://app.test/voice/browser-sessionsX')).toBe('/voice/browser-sessionsX');
    expect(path('http://app.test/voice/agents')).toBe('/voice/agents');
  });

  for (const base of ['/voice', '/api/phone', '']) {
    it(`answers under Hono at "${base || '/'}"`, async () => {
      harness = createHarness();
      const proxy = harness.proxy;
      const app = new Hono().all(`${base}/*`, (c) => proxy(c.req.raw));
      await sessionRoundTrip((path, init) => Promise.resolve(app.request(path, init)), base);
      expect(harness.seen.map((request) => `${request.method} ${request.path}`)).toContain('POST /browser-sessions');
    });
  }

  it('answers under a Node server that strips its mount prefix, as Express app.use("/voice") does', async () => {
    harness = createHarness();
    const listener = getRequestListener(harness.proxy);
    const origin = await serve((request: IncomingMessage, response: ServerResponse) => {
      if (!request.url?.startsWith('/voice/')) return void response.writeHead(404).end();
      request.url = request.url.slice('/voice'.length);
      void listener(request, response);
    });
    await sessionRoundTrip((path, init) => fetch(`${origin}${path}`, init), '/voice');
  });

  for (const mount of ['app.use', 'app.all'] as const) {
    it(`answers under Express, mounted with ${mount}('/voice', ...)`, async () => {
      harness = createHarness();
      const app = express();
      const listener = getRequestListener(harness.proxy);
      // app.use strips its prefix from the request's URL; app.all with a wildcard keeps it.
      if (mount === 'app.use') app.use('/voice', (request, response) => void listener(request, response));
      else app.all('/voice/*splat', (request, response) => void listener(request, response));
      const origin = await serve(app);
      await sessionRoundTrip((path, init) => fetch(`${origin}${path}`, init), '/voice');
    });
  }

  it('answers no route outside its six, under any prefix', async () => {
    harness = createHarness();
    for (const path of ['/voice', '/voice/agents', '/other/browser-sessionsX', '/voice/browser-calls/bc_1/hangup/extra']) {
      const answer = await harness.proxy(new Request(`http://app.test${path}`, { headers: asAlice }));
      expect(answer.status, path).toBe(404);
    }
  });
});
