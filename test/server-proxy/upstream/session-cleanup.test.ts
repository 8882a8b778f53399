import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../../contract/http-error.js';
import { createVoiceProxy, type VoiceProxy } from '../../../server-proxy/setup/proxy.js';
import type { SessionTransport } from '../../../simulator/service/model.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { lendWebSocket, SipClient } from '../../simulator/support/sip-client.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { callRecord, withCalls } from '../support/calls-overlay.js';
import { settleOnClock } from '../support/drive-clock.js';
import { API_KEY, createHarness, createSession, send, testAuthenticate, type Fetch, type Harness } from '../support/harness.js';

/**
 * Sessions the page does not hold: logout proves the user's call ended
 * whatever the service's session end did to it (spec 3.2), and a session whose creating answer was lost is
 * ended rather than left with live credentials. Against the real simulator over loopback, with a SIP.js agent
 * (fake media) in the page's place; and in-process with scripted faults.
 */

let cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function harness(options: Parameters<typeof createHarness>[0]): Harness {
  const h = createHarness({ rateLimit: false, ...options });
  cleanups.push(() => h.close());
  return h;
}

interface World {
  sim: RunningSimulator;
  proxy: VoiceProxy;
  lines: string[];
}

/** The simulator on a free port and a proxy in front of it; `wrap` puts a fault between them. */
async function world(wrap?: (real: Fetch) => Fetch): Promise<World> {
  const sim = await startSimulator({ apiKey: API_KEY, port: 0, mediaAddresses: 'loopback' });
  cleanups.push(() => sim.close());
  const lines: string[] = [];
  const realFetch: Fetch = (input, init) => fetch(input, init);
  const proxy = createVoiceProxy({
    baseUrl: sim.baseUrl,
    apiKey: API_KEY,
    authenticate: testAuthenticate,
    rateLimit: false,
    log: (line) => lines.push(line),
    ...(wrap ? { fetch: wrap(realFetch) } : {}),
  });
  return { sim, proxy, lines };
}

/** alice's request to the proxy (the harness's `send`: the key is in no answer). */
const page = (proxy: VoiceProxy, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  send({ proxy, apiKey: API_KEY }, method, path, { user: 'alice', body, headers });

async function until<T>(read: () => T | Promise<T>, done: (value: T) => boolean, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** alice's session through the proxy, registered by a SIP.js agent, with a connected call to +12025550100. */
async function connectedCall(w: World): Promise<{ sessionId: string; callId: string }> {
  const restore = lendWebSocket();
  cleanups.push(async () => restore());
  const created = await page(w.proxy, 'POST', '/voice/browser-sessions', {});
  expect(created.status).toBe(201);
  const { session, transport } = created.json as { session: { id: string }; transport: SessionTransport };
  const client = await SipClient.start(transport);
  cleanups.push(() => client.stop());
  expect((await client.register(client.registerer(transport.registrationExpiresSeconds))).statusCode).toBe(200);
  const invited = client.nextInvitation();
  const started = await page(w.proxy, 'POST', '/voice/browser-calls', { sessionId: session.id, from: '+12025550199', to: '+12025550100' }, { 'Idempotency-Key': 'press-1' });
  expect(started.status).toBe(202);
  const callId = (started.json as { call: { id: string } }).call.id;
  await (await invited).accept();
  await until(() => w.sim.service.getCall(API_KEY, callId).state, (state) => state === 'connected', 'the call to connect');
  return { sessionId: session.id, callId };
}

async function expireSession(sim: RunningSimulator, id: string): Promise<void> {
  const response = await fetch(`${sim.url}/__sim/sessions/${id}/expire`, { method: 'POST' });
  expect(response.status).toBe(200);
}

describe('revokeSessions (logout)', () => {
  it('ends a call that outlived its expired session, so the user’s next session is admitted', async () => {
    const w = await world();
    const { sessionId, callId } = await connectedCall(w);
    await expireSession(w.sim, sessionId);
    // spec 3.2: the accepted call runs on past its session's expiry.
    expect(w.sim.service.getSession(API_KEY, sessionId).status).toBe('expired');
    expect(w.sim.service.getCall(API_KEY, callId)).toMatchObject({ state: 'connected', busy: true });

    await w.proxy.revokeSessions({ id: 'alice' });

    expect(w.sim.service.getCall(API_KEY, callId)).toMatchObject({ busy: false });
    const next = await page(w.proxy, 'POST', '/voice/browser-sessions', {});
    expect(next.status).toBe(201);
  });

  it('hangs up a call the service’s session end left running, and resolves only once a read shows it over', async () => {
    const deletes: string[] = [];
    // A service whose DELETE answers 200 and leaves the call alone (spec 3.2: revocation proves nothing).
    const w = await world((real) => async (input, init) => {
      const url = String(input);
      if (init?.method !== 'DELETE') return real(input, init);
      deletes.push(new URL(url).pathname);
      const id = /\/browser-sessions\/([^/]+)$/.exec(new URL(url).pathname)?.[1] ?? '';
      return Response.json({ session: { id, externalSubject: 'alice', status: 'active' } });
    });
    const { sessionId, callId } = await connectedCall(w);

    await w.proxy.revokeSessions({ id: 'alice' });

    expect(deletes).toEqual([`/api/v1/voice/browser-sessions/${sessionId}`]);
    expect(w.sim.service.getCall(API_KEY, callId)).toMatchObject({ state: 'ended', busy: false, endReason: 'api_hangup' });
    expect((await page(w.proxy, 'POST', '/voice/browser-sessions', {})).status).toBe(201);
  });

  it('rejects 504 cleanup_unknown when no read proves the call ended within revokeWaitMs', async () => {
    const calls = new Map([['bc_stuck', callRecord('bc_stuck', { externalSubject: 'alice' })]]);
    let sessionId = '';
    // On a fake clock: the wait between reads is the subject, so the test moves time rather than spending it.
    const clock = new FakeClock(Date.parse('2026-01-05T09:00:00Z'));
    const h = harness({
      clock,
      revokeWaitMs: 700,
      // The current-session read lists the call; every read of it keeps `busy: true`, even after the hangup.
      wrap: (sim) => {
        const overlaid = withCalls(calls)(sim);
        return async (input, init) => {
          const url = new URL(String(input));
          if ((init?.method ?? 'GET') === 'GET' && url.pathname.endsWith('/browser-sessions')) {
            return Response.json({ session: { id: sessionId, externalSubject: 'alice', status: 'expired' }, call: calls.get('bc_stuck') });
          }
          return overlaid(input, init);
        };
      },
    });
    sessionId = (await createSession(h, 'alice')).session.id;
    const started = clock.now();

    const revoked = h.proxy.revokeSessions({ id: 'alice' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Only timers within the wait move on by themselves; an upstream request's own time limit is far beyond it.
    const error = await settleOnClock(clock, revoked, 700);

    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 504, code: 'cleanup_unknown', message: expect.stringContaining('could not be proven ended') });
    // It read until one more pause would pass the wait, and gave up no later than the wait.
    const elapsed = clock.now() - started;
    expect(elapsed).toBeGreaterThan(700 - 300);
    expect(elapsed).toBeLessThanOrEqual(700);
    const asked = h.seen.map((r) => `${r.method} ${r.path}`).filter((line) => !line.startsWith('POST /agents') && line !== 'POST /browser-sessions');
    expect(asked.slice(0, 4)).toEqual(['GET /browser-sessions', `DELETE /browser-sessions/${sessionId}`, 'GET /browser-calls/bc_stuck', 'POST /browser-calls/bc_stuck/hangup']);
    expect(asked.slice(4).every((line) => line === 'GET /browser-calls/bc_stuck')).toBe(true);
    expect(asked.length).toBeGreaterThanOrEqual(6);
  });

  it('sends no hangup when the read after the session’s end shows the call over', async () => {
    const calls = new Map([['bc_done', callRecord('bc_done', { externalSubject: 'alice' })]]);
    const h = harness({
      wrap: (sim) => {
        const overlaid = withCalls(calls)(sim);
        return async (input, init) => {
          const url = new URL(String(input));
          if ((init?.method ?? 'GET') === 'GET' && url.pathname.endsWith('/browser-sessions')) {
            const listed = calls.get('bc_done');
            // The session's end took the call down; the list still showed it running.
            calls.set('bc_done', callRecord('bc_done', { externalSubject: 'alice', state: 'ended', busy: false, endReason: 'session_ended' }));
            return Response.json({ session: null, call: listed });
          }
          return overlaid(input, init);
        };
      },
    });

    await h.proxy.revokeSessions({ id: 'alice' });

    expect(h.seen.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /browser-sessions', 'GET /browser-calls/bc_done']);
  });
});

/** The simulator creates the next session asked for, then loses its answer (its drop-response fault). */
async function loseNextSessionAnswer(sim: RunningSimulator): Promise<void> {
  const armed = await fetch(`${sim.url}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'POST', path: '/api/v1/voice/browser-sessions', fault: 'drop-response' }),
  });
  expect(armed.status).toBe(201);
}

describe('POST /voice/browser-sessions whose answer is lost', () => {
  it('ends the session the service made, then answers 504 browser_session_unavailable', async () => {
    const w = await world();
    await loseNextSessionAnswer(w.sim);

    const response = await page(w.proxy, 'POST', '/voice/browser-sessions', {});

    // Still a 5xx (spec 7): a lost answer is never a rejection.
    expect(response.status).toBe(504);
    expect(response.json).toEqual({ error: expect.stringContaining('no session was left open'), code: 'browser_session_unavailable' });
    // The session it made had live credentials no page was handed: it is over, not left for an hour.
    expect(w.sim.service.currentSession(API_KEY, 'alice')).toEqual({ session: null, call: null });
    const [agent] = w.sim.service.listAgents(API_KEY, 'alice');
    expect(agent).toBeDefined();
    expect((await page(w.proxy, 'GET', '/voice/browser-sessions')).json).toEqual({ session: null, call: null });
  });

  it('leaves a session whose call runs alone', async () => {
    const w = await world();
    const { sessionId, callId } = await connectedCall(w);
    await loseNextSessionAnswer(w.sim);

    const response = await page(w.proxy, 'POST', '/voice/browser-sessions', {});

    expect(response.status).toBe(504);
    expect(response.json).toMatchObject({ code: 'browser_session_unavailable' });
    expect(w.sim.service.getSession(API_KEY, sessionId).status).toBe('active');
    expect(w.sim.service.getCall(API_KEY, callId)).toMatchObject({ state: 'connected', busy: true });
  });

  it('logs when it could not end that session, and says so to the page, still as a 5xx', async () => {
    const lines: string[] = [];
    let lost = false;
    const h = harness({
      log: (line) => lines.push(line),
      wrap: (sim) => async (input, init) => {
        const path = new URL(String(input)).pathname;
        if (!lost || !path.endsWith('/browser-sessions')) return sim(input, init);
        if (init?.method === 'POST') {
          await sim(input, init);
          // Written, done at the service, and the answer lost on the way back.
          throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
        }
        return Response.json({ error: 'try later', code: 'provider_error' }, { status: 503 });
      },
    });
    await createSession(h, 'alice');
    lost = true;

    const response = await send(h, 'POST', '/voice/browser-sessions', { user: 'alice', body: {} });

    expect(response.status).toBe(504);
    expect(response.json).toEqual({ error: expect.stringContaining('could not be ended'), code: 'browser_session_unavailable' });
    expect(lines.join('\n')).toMatch(/a session whose answer was lost could not be ended \(provider_error\)/);
    expect(h.seen.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });
});
