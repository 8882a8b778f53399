import { Hono } from 'hono';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createControlApp } from '../../../simulator/http/control.js';
import { FaultPlan } from '../../../simulator/service/faults.js';
import { DEFAULT_QUOTA } from '../../../simulator/http/rate-limit.js';
import { RestWorld } from './rest-support.js';

/** The control API mounted as server.ts mounts it (`route('/__sim', ...)`): every answer coded and no-store. */
describe('/__sim control API (docs/simulator.md)', () => {
  const world = new RestWorld();
  let forgotten = 0;
  const faults = new FaultPlan();
  const app = new Hono().route(
    '/__sim',
    createControlApp({ service: world.service, faults, registry: world.registry, defaultQuota: DEFAULT_QUOTA, forget: () => (forgotten += 1) }),
  );
  afterAll(() => world.close());

  it('answers an unknown control route 404 not_found as JSON, even mounted under /__sim', async () => {
    const response = await app.request('/__sim/nope');
    expect(response.status).toBe(404);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ error: 'no such control route', code: 'not_found' });
  });

  it('answers an unknown call 404 not_found', async () => {
    const response = await app.request('/__sim/calls/bc_nope');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found' });
  });

  it('arms, lists and clears faults; reset forgets them with the rest', async () => {
    const armed = await app.request('/__sim/faults', { method: 'POST', body: JSON.stringify({ method: 'GET', path: '/api/v1/voice/agents', fault: 'delay', delayMs: 5 }) });
    expect(armed.status).toBe(201);
    expect(((await (await app.request('/__sim/faults')).json()) as { armed: unknown[] }).armed).toHaveLength(1);
    const reset = await app.request('/__sim/reset', { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(forgotten).toBe(1);
    expect(faults.list()).toEqual([]);
  });

  it('expires a session now: status expired, registration gone, new calls refused, the accepted call runs on (spec 3.2)', async () => {
    const sessionId = await world.openSession('control-expire');
    const started = await world.startCall(sessionId, 'control-expire-call');
    expect(started.status).toBe(202);
    const callId = String((started.json['call'] as { id: string }).id);
    // Accepted means its INVITE went out: expiring earlier would leave the call no agent to ring (agent_unreachable).
    await vi.waitFor(() => expect(world.service.inspectCall(callId)?.facts.inviteSentAt).toEqual(expect.any(String)), { timeout: 30_000 });

    const response = await app.request(`/__sim/sessions/${sessionId}/expire`, { method: 'POST' });
    expect(response.status).toBe(200);
    const { session } = (await response.json()) as { session: { status: string; expiresAt: string } };
    expect(session.status).toBe('expired');
    expect(Date.parse(session.expiresAt)).toBeLessThanOrEqual(Date.now());
    expect(world.service.sip.registration(sessionId)).toBeUndefined();
    expect(world.service.inspectCall(callId)?.call.busy).toBe(true);
    const refused = await world.startCall(sessionId, 'control-expire-call-2');
    expect({ status: refused.status, code: refused.json['code'] }).toEqual({ status: 409, code: 'browser_session_unavailable' });
    await world.send({ path: `/browser-calls/${callId}/hangup`, body: {} });
  });

  it("reads what the registrar did for a session: registered on one socket, then dropped when it expired", async () => {
    const sessionId = await world.openSession('control-registration');
    const read = async () => ((await (await app.request(`/__sim/sessions/${sessionId}/registration`)).json()) as { registration: Record<string, unknown> }).registration;
    expect(await read()).toMatchObject({ registered: true, unregisteredMs: 0, registrations: 1, sockets: 1, firstRegisteredAt: expect.any(String) });

    await app.request(`/__sim/sessions/${sessionId}/expire`, { method: 'POST' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = await read();
    expect(after).toMatchObject({ registered: false, registrations: 1, sockets: 1 });
    expect(after['unregisteredMs']).toBeGreaterThanOrEqual(15);
    expect((await app.request('/__sim/sessions/bs_nope/registration')).status).toBe(404);
  });

  it('answers expiring an unknown session 404 not_found', async () => {
    const response = await app.request('/__sim/sessions/bs_nope/expire', { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found' });
  });

  it('refuses a fault body that is not JSON with 400 invalid_input', async () => {
    const response = await app.request('/__sim/faults', { method: 'POST', body: '{' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_input' });
  });
});
