import { getRequestListener } from '@hono/node-server';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.js';
import { useLoopbackServers } from '../support/loopback-server.js';

/**
 * An app-wide body parser mounted before the proxy reads the page's body first; the proxy then gets a request
 * that promises a body and carries none. It must say so, with the fix, instead of refusing every call as input.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
});
/** Serves an app on a free loopback port until the test ends; resolves its origin. */
const listen = useLoopbackServers();

const asAlice = { 'x-test-user': 'alice', 'content-type': 'application/json' };

/** Creates a session through the app, then a call from it: what a page does at Connect and Call. */
async function connectAndCall(origin: string) {
  const created = await fetch(`${origin}/voice/browser-sessions`, { method: 'POST', headers: asAlice, body: '{}' });
  const session = (await created.json()) as { session?: { id: string }; code?: string; error?: string };
  if (!session.session) return { status: created.status, body: session };
  const call = await fetch(`${origin}/voice/browser-calls`, {
    method: 'POST',
    headers: { ...asAlice, 'idempotency-key': 'k-consumed-body-1' },
    body: JSON.stringify({ sessionId: session.session.id, from: '+12025550199', to: '+12025550100' }),
  });
  return { status: call.status, body: (await call.json()) as { code?: string; error?: string } };
}

describe('a body read before the proxy', () => {
  it('is refused 500 body_already_read, with the fix, and said once in the log', async () => {
    const lines: string[] = [];
    harness = createHarness({ log: (line) => lines.push(line) });
    const app = express();
    app.use(express.json());
    app.use('/voice', getRequestListener(harness.proxy));
    const origin = await listen(app);

    const first = await connectAndCall(origin);
    expect(first.status).toBe(500);
    expect(first.body.code).toBe('body_already_read');
    expect(first.body.error).toContain('mount the voice proxy before the body parser');
    expect(first.body.error).toContain('req.rawBody = buf');
    await connectAndCall(origin);
    expect(lines.filter((line) => line.includes('body parser'))).toHaveLength(1);
    // Nothing reached the service.
    expect(harness.seen).toEqual([]);
  });

  it('passes when the parser keeps the raw body for it, and when the proxy is mounted first', async () => {
    harness = createHarness();
    const keeping = express();
    keeping.use(express.json({ verify: (req, _res, buf) => Object.assign(req, { rawBody: buf }) }));
    keeping.use('/voice', getRequestListener(harness.proxy));
    await connectAndCall(await listen(keeping));
    // The call's body reached the service whole (which then refuses it: no page registered in this test).
    const calls = harness.seen.filter((request) => request.method === 'POST' && request.path === '/browser-calls');
    expect(calls.map((request) => request.body)).toEqual([expect.objectContaining({ from: '+12025550199', to: '+12025550100' })]);

    const first = express();
    first.use('/voice', getRequestListener(harness.proxy));
    first.use(express.json());
    const before = await fetch(`${await listen(first)}/voice/browser-sessions`, { method: 'POST', headers: asAlice, body: '{}' });
    expect(before.status).toBe(201);
  });

  it('leaves a request without a body alone: a mutation with no bytes is judged by its route', async () => {
    harness = createHarness();
    const answer = await harness.proxy(new Request('http://app.test/voice/browser-sessions', { method: 'POST', headers: asAlice }));
    expect(answer.status).toBe(201);
  });
});
