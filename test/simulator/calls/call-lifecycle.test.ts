/**
 * How a browser call ends besides a hangup, against a real simulator spoken to by SIP.js in Node: its own
 * duration limit, session and registration expiry (spec 3.2), the end of its session whatever its status
 * (spec 4.7 DELETE), and the loss of the page's SIP WebSocket under it. Timings are shortened through the
 * simulator's options.
 */
import { describe, expect, it } from 'vitest';
import { BROWSER_CALL_TRANSITIONS } from '../../../contract/browser-call.js';
import { RegistererState } from 'sip.js';
import type { BrowserSession } from '../../../simulator/service/model.js';
import { sleep, waitFor } from '../support/sim-api.js';
import { TIMER_SLACK_MS, answeredCall, ended, ringingCall, terminated, useSipWorlds, type RegisteredWorld } from '../support/sip-world.js';
import { WeriftSessionDescriptionHandler } from '../support/werift-sdh.js';

const ECHO_AT_ONCE = '+12025550100';

const { world, sipClient, registeredWorld } = useSipWorlds();

const DRAWN = new Set(BROWSER_CALL_TRANSITIONS.map((move) => move.join(' → ')));

/** The states the call went through, each move one the contract's diagram draws (BROWSER_CALL_TRANSITIONS). */
async function states(w: RegisteredWorld, callId: string): Promise<string[]> {
  const path = (await w.api.facts(callId)).history.map((entry) => entry.state);
  for (let i = 1; i < path.length; i++) expect(DRAWN, `${path[i - 1]} → ${path[i]}`).toContain(`${path[i - 1]} → ${path[i]}`);
  return path;
}

/** POST /browser-calls answers 409 browser_session_unavailable: the session cannot take a call now. */
async function expectNoNewCalls(w: RegisteredWorld): Promise<void> {
  const refused = await w.api.startCall(w.session.id, ECHO_AT_ONCE);
  expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 409, code: 'browser_session_unavailable' });
}

describe('spec 4.7 maxDurationSeconds: the call\'s own limit', () => {
  it('ends a connected call at its limit with endReason max_duration, a BYE to the browser, and busy false', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await answeredCall(w, ECHO_AT_ONCE, { maxDurationSeconds: 1 });
    await terminated(invitation);
    const call = await ended(w, callId);
    expect(call).toMatchObject({ state: 'ended', endReason: 'max_duration', busy: false, maxDurationSeconds: 1 });
    // The limit runs from the answer: never sooner.
    expect(Date.parse(call.endedAt ?? '') - Date.parse(call.answeredAt ?? '')).toBeGreaterThanOrEqual(1000 - TIMER_SLACK_MS);
    expect(await states(w, callId)).toEqual(['waiting_agent', 'dialing_recipient', 'connected', 'ending', 'ended']);
  });
});

describe('docs/simulator.md: the two legs end from either side', () => {
  it('an INVITE the browser never answers is CANCELled after agentAnswerTimeoutMs: failed, agent_no_answer', async () => {
    const w = await registeredWorld({ agentAnswerTimeoutMs: 500 });
    const { callId, invitation } = await ringingCall(w);
    await terminated(invitation);
    const call = await ended(w, callId);
    expect(call).toMatchObject({ state: 'failed', endReason: 'agent_no_answer', error: { code: 'agent_no_answer' }, busy: false });
    const facts = await w.api.facts(callId);
    expect(facts.browserFinalStatus).toBe(487);
    expect(facts.history.map((entry) => entry.state)).toEqual(['waiting_agent', 'ending', 'failed']);
  });

  it('POST /__sim/calls/:id/remote-hangup: the recipient hangs up, a BYE reaches the browser, recipient_hangup', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await answeredCall(w);
    await w.api.waitForCall(callId, (call) => call.state === 'connected', 'the call to connect');
    expect(await w.api.remoteHangup(callId)).toBe(202);
    await terminated(invitation);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', endReason: 'recipient_hangup', busy: false });
    expect(await w.api.remoteHangup('bc_unknown')).toBe(404);
  });
});

describe('spec 3.2: session or registration expiry, the earlier, blocks new calls; an accepted call keeps its own limit', () => {
  it('an expired session takes no new call, while its accepted call runs on to max_duration', async () => {
    // The registrar grants at most the session's remaining life (2 s here): the call starts well inside it.
    const w = await registeredWorld({ sessionTtlSeconds: 3 });
    const { callId } = await answeredCall(w, ECHO_AT_ONCE, { maxDurationSeconds: 5 });
    await sleep(Date.parse(w.session.expiresAt) + 200 - Date.now());

    const session = (await w.api.request<{ session: BrowserSession }>('GET', `/browser-sessions/${w.session.id}`)).body.session;
    expect(session.status).toBe('expired');
    await expectNoNewCalls(w);
    expect(await w.api.call(callId)).toMatchObject({ state: 'connected', busy: true });
    // The running call is the subject's: a page recovering finds it, and a renewed session must wait for it.
    const current = await w.api.request<{ session: BrowserSession; call: { id: string } }>('GET', `/browser-sessions?externalSubject=${w.session.externalSubject}`);
    expect(current.body).toMatchObject({ session: { id: w.session.id, status: 'expired' }, call: { id: callId } });
    const renewed = await w.api.request<{ code?: string }>('POST', '/browser-sessions', { externalSubject: w.session.externalSubject });
    expect({ status: renewed.status, code: renewed.body.code }).toEqual({ status: 409, code: 'browser_agent_busy' });

    const call = await ended(w, callId);
    expect(call).toMatchObject({ state: 'ended', endReason: 'max_duration', busy: false });
    await expectNoNewCalls(w);
    // Its credentials are dead too: a REGISTER with them is refused.
    const again = await sipClient(w.transport);
    expect((await again.register(again.registerer())).statusCode).toBe(403);
  });

  it('a lapsed registration takes no new call while the session lives; the accepted call runs on', async () => {
    const w = await world({ registrationMaxSeconds: 2 });
    const client = await sipClient(w.transport);
    const registeredAt = Date.now();
    expect((await client.bareRegistrations()(2)).statusCode).toBe(200); // no refresh: the binding lapses
    const registered = { ...w, client };
    const { callId } = await answeredCall(registered, ECHO_AT_ONCE, { maxDurationSeconds: 4 });
    await sleep(registeredAt + 2_300 - Date.now());

    await expectNoNewCalls(registered);
    expect((await w.api.request<{ session: BrowserSession }>('GET', `/browser-sessions/${w.session.id}`)).body.session.status).toBe('active');
    expect(await w.api.call(callId)).toMatchObject({ state: 'connected', busy: true });
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', endReason: 'max_duration', busy: false });
  });
});

describe('spec 4.7 DELETE /browser-sessions/{id}: cleanup', () => {
  it('ends the registration: no new call, and the credentials no longer register', async () => {
    const w = await registeredWorld();
    const registerer = w.client.registerer();
    expect((await w.api.endSession(w.session.id)).body.session.status).toBe('ended');
    await expectNoNewCalls(w);
    expect((await w.client.register(registerer)).statusCode).toBe(403);
    expect(registerer.state).not.toBe(RegistererState.Registered);
  });

  it('hangs up the active call: BYE to the browser, endReason session_ended, busy false only once both legs are down', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await answeredCall(w);
    await w.api.waitForCall(callId, (call) => call.state === 'connected', 'the call to connect');
    const deleted = await w.api.endSession(w.session.id);
    expect(deleted.status).toBe(200);
    expect(deleted.body.session.status).toBe('ended');
    await terminated(invitation);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', endReason: 'session_ended', busy: false });
    expect(await states(w, callId)).toEqual(['waiting_agent', 'dialing_recipient', 'connected', 'ending', 'ended']);
  });

  it('hangs up the call of an expired session too, which expiry let run on; the subject can then start a session', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await answeredCall(w);
    await w.api.waitForCall(callId, (call) => call.state === 'connected', 'the call to connect');
    expect((await w.api.expireSession(w.session.id)).body.session.status).toBe('expired');
    expect(await w.api.call(callId)).toMatchObject({ state: 'connected', busy: true });

    const deleted = await w.api.endSession(w.session.id);
    expect(deleted.status).toBe(200);
    // The session keeps the status it ended with; the cleanup is of its call.
    expect(deleted.body.session.status).toBe('expired');
    await terminated(invitation);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', endReason: 'session_ended', busy: false });
    expect(await states(w, callId)).toEqual(['waiting_agent', 'dialing_recipient', 'connected', 'ending', 'ended']);
    const renewed = await w.api.request<{ session: BrowserSession }>('POST', '/browser-sessions', { externalSubject: w.session.externalSubject });
    expect(renewed.status).toBe(201);
    expect(renewed.body.session.status).toBe('active');
  });
});

describe('RFC 7118: the SIP WebSocket closes under a call', () => {
  it('before the browser answered: the INVITE cannot be answered any more, the call fails connection_lost', async () => {
    const w = await registeredWorld();
    const { callId } = await ringingCall(w);
    w.sim.service.closeSipSockets(w.session.id);
    const call = await ended(w, callId);
    expect(call).toMatchObject({ state: 'failed', endReason: 'connection_lost', error: { code: 'connection_lost' }, busy: false });
    expect((await w.api.facts(callId)).transportLostAt).not.toBeNull();
  });

  it('after the answer: the call lives while the browser\'s audio flows, and ends connection_lost once it stops', async () => {
    // Long enough that a loaded machine's pause in the page's audio is not taken for its end.
    const mediaTimeoutMs = 3000;
    // The reads that wait for the end poll for longer than the default quota allows (spec 8), which is not under test.
    const w = await registeredWorld({ mediaTimeoutMs, quota: { perMinute: 100_000, perHour: 1_000_000 } }, { media: 'werift' });
    const { callId, invitation } = await answeredCall(w);
    const sdh = invitation.sessionDescriptionHandler;
    if (!(sdh instanceof WeriftSessionDescriptionHandler)) throw new Error('expected the werift handler');
    await waitFor(() => (sdh.pc.connectionState === 'connected' ? true : undefined), 'media to connect on loopback');
    sdh.startAudio();

    w.sim.service.closeSipSockets(w.session.id);
    await waitFor(async () => ((await w.api.facts(callId)).transportLostAt ? true : undefined), 'the simulator to see the socket close');
    await sleep(2 * mediaTimeoutMs);
    expect(await w.api.call(callId)).toMatchObject({ state: 'connected', busy: true });

    sdh.stopAudio();
    const stoppedAt = Date.now();
    const call = await ended(w, callId);
    expect(call).toMatchObject({ state: 'ended', endReason: 'connection_lost', busy: false });
    expect(Date.parse(call.endedAt ?? '')).toBeGreaterThanOrEqual(stoppedAt + mediaTimeoutMs - 100);
  });
});
