// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { VoiceBrowserError } from '../../lib/core/errors.js';
import { httpError, networkError } from '../../lib/testing/fake-backend.js';
import { FakeInvite } from '../../lib/testing/fake-sip.js';
import { CALL, START, connected, inCall, setup } from '../support/helper-world.js';
import { rejection } from '../support/rejection.js';

describe('connect()', () => {
  it('reaches ready with the session id and expiry, reporting session_created then registered', async () => {
    const { voice, sip, clock, timings, statuses, remoteAudio } = setup();
    await voice.connect();

    expect(voice.status()).toMatchObject({
      connection: 'ready',
      session: { id: 'session-1', expiresAt: '2030-01-01T00:00:00.000Z' },
      busy: false,
      error: null,
    });
    expect(timings.map((t) => t.name)).toEqual(['session_created', 'registered']);
    expect(timings.every((t) => t.at === clock.now() && t.sinceStartMs === 0)).toBe(true);
    expect(statuses[0]?.connection).toBe('connecting');
    // The session's temporary transport and the page's audio element go to the SIP link.
    expect(sip.link.options.transport.authorizationUsername).toBe('session-1');
    expect(sip.link.options.remoteAudio).toBe(remoteAudio);
  });

  it('ends the session it created when registration fails, and shows disconnected with the error code', async () => {
    const { voice, sip, backend } = setup();
    sip.failOpenWith = new VoiceBrowserError('connection_failed', 'SIP registration failed: 403 Forbidden');

    const error = await rejection(voice.connect());
    expect(error.code).toBe('connection_failed');
    expect(backend.requestsOf('endSession').map((r) => r.id)).toEqual(['session-1']);
    expect(backend.sessions.get('session-1')?.ended).toBe(true);
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null, error: { code: 'connection_failed' } });
  });

  it('codes a plain failure while registering as connection_failed', async () => {
    const { voice, sip } = setup();
    sip.failOpenWith = new Error('WebSocket closed');
    expect((await rejection(voice.connect())).code).toBe('connection_failed');
    expect(voice.status().error?.code).toBe('connection_failed');
  });

  it('keeps the service code when the session cannot be created, with nothing to end', async () => {
    const { voice, backend, sip } = setup();
    backend.fail('createSession', httpError(403, 'voice_not_entitled'));
    expect((await rejection(voice.connect())).code).toBe('voice_not_entitled');
    expect(backend.requestsOf('endSession')).toHaveLength(0);
    expect(sip.links).toHaveLength(0);
    expect(voice.status()).toMatchObject({ connection: 'disconnected', error: { code: 'voice_not_entitled' } });
  });

  it('joins a connect() already under way instead of creating a second session', async () => {
    const { voice, backend } = setup();
    await Promise.all([voice.connect(), voice.connect()]);
    expect(backend.requestsOf('createSession')).toHaveLength(1);
  });
});

describe('startCall()', () => {
  it('rejects with browser_session_unavailable before connect() is ready', async () => {
    const { voice, backend } = setup();
    const error = await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    expect(error.code).toBe('browser_session_unavailable');
    expect(backend.requestsOf('createCall')).toHaveLength(0);
    expect(voice.status().busy).toBe(false);
  });

  it('rejects with browser_session_unavailable while the session is created but not yet registered', async () => {
    const { voice, backend, sip, clock } = setup();
    const release = sip.holdOpen();
    const connecting = voice.connect();
    await clock.flush();
    expect(voice.status()).toMatchObject({ connection: 'connecting', session: { id: 'session-1' } });

    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }))).code).toBe('browser_session_unavailable');
    expect(backend.requestsOf('createCall')).toHaveLength(0);
    release();
    await connecting;
    expect(voice.status().connection).toBe('ready');
  });

  it('rejects bad input or idempotency keys with invalid_argument without calling the backend', async () => {
    const { voice, backend } = await connected();
    const bad: Array<[Parameters<typeof voice.startCall>[0], string]> = [
      [CALL, ''],
      [CALL, '   '],
      [CALL, 'k'.repeat(129)],
      [CALL, 'clé-1'],
      [{ from: '12025550199', to: CALL.to }, 'key-1'],
      [{ from: CALL.from, to: '+1 202 555 0100' }, 'key-1'],
      [{ from: CALL.from, to: '' }, 'key-1'],
    ];
    for (const [input, key] of bad) {
      const error = await rejection(voice.startCall(input, { idempotencyKey: key }));
      expect(error.code, `${JSON.stringify(input)} ${key}`).toBe('invalid_argument');
    }
    expect(backend.requestsOf('createCall')).toHaveLength(0);
    expect(voice.status().busy).toBe(false);
  });

  it('shows busy true and the service call after 202, but no connected until a read says connected (spec 3.2)', async () => {
    const { voice, backend, sip, clock, timings } = await connected();
    const call = await voice.startCall(CALL, { idempotencyKey: 'key-1' });

    expect(call).toMatchObject({ id: 'call-1', state: 'waiting_agent' });
    expect(backend.requestsOf('createCall')[0]).toMatchObject({ idempotencyKey: 'key-1', input: { ...CALL, sessionId: 'session-1' } });
    expect(voice.status()).toMatchObject({ busy: true, call: { id: 'call-1', state: 'waiting_agent' }, attempt: { idempotencyKey: 'key-1', phase: 'admitted' } });
    // The service's fields the helper does not know are kept.
    expect(voice.status().call?.['leg']).toEqual({ provider: 'fake', region: 'test-1' });

    // Our leg answered and media flows: still not connected, the recipient has not answered.
    sip.invite('call-1');
    sip.events.onMediaConnected('call-1');
    backend.setCall('call-1', { state: 'dialing_recipient' });
    await clock.advance(1000);
    expect(voice.status().call?.state).toBe('dialing_recipient');
    expect(timings.map((t) => t.name)).not.toContain('connected');

    backend.setCall('call-1', { state: 'connected' });
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: true, call: { state: 'connected' } });
    expect(timings.filter((t) => t.name === 'connected')).toEqual([{ name: 'connected', callId: 'call-1', at: START + 2000, sinceStartMs: 2000 }]);
  });

  it('makes one createCall for a double startCall with the same key while the first is in flight', async () => {
    const { voice, backend } = await connected();
    const gate = backend.hold('createCall');
    const first = voice.startCall(CALL, { idempotencyKey: 'key-1' });
    const second = voice.startCall(CALL, { idempotencyKey: 'key-1' });
    gate.release();

    const [a, b] = await Promise.all([first, second]);
    expect(a.id).toBe('call-1');
    expect(b.id).toBe('call-1');
    expect(backend.requestsOf('createCall')).toHaveLength(1);
  });

  it('rejects a startCall with another key while busy with browser_agent_busy', async () => {
    const { voice, backend } = await inCall();
    const error = await rejection(voice.startCall({ ...CALL, to: '+12025550101' }, { idempotencyKey: 'key-2' }));
    expect(error.code).toBe('browser_agent_busy');
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    expect(voice.status()).toMatchObject({ busy: true, call: { id: 'call-1' }, attempt: { idempotencyKey: 'key-1' } });
  });

  it('rejects with call_outcome_unknown and stays busy, keeping the attempt and its key, when createCall gets no answer', async () => {
    const { voice, backend } = await connected();
    backend.fail('createCall', networkError());

    const error = await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    expect(error.code).toBe('call_outcome_unknown');
    expect(voice.status()).toMatchObject({
      busy: true,
      error: { code: 'call_outcome_unknown' },
      attempt: { idempotencyKey: 'key-1', phase: 'outcome_unknown', input: CALL },
    });
    // Never an automatic retry of the mutation.
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-2' }))).code).toBe('browser_agent_busy');
  });

  it('gets the original call back on a retry with the same key after a lost answer', async () => {
    const { voice, backend } = await connected();
    // The service places the call, then the answer is lost.
    backend.drop('createCall');
    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }))).code).toBe('call_outcome_unknown');

    const call = await voice.startCall(CALL, { idempotencyKey: 'key-1' });
    expect(backend.requestsOf('createCall').map((r) => r.idempotencyKey)).toEqual(['key-1', 'key-1']);
    expect(call.id).toBe('call-1');
    expect(backend.calls.size).toBe(1);
    expect(voice.status()).toMatchObject({ busy: true, error: null, call: { id: 'call-1' }, attempt: { idempotencyKey: 'key-1', phase: 'admitted' } });
  });

  it('turns busy false and shows compliance_dnc when the service refuses the call with 403', async () => {
    const { voice, backend } = await connected();
    backend.fail('createCall', httpError(403, 'compliance_dnc'));

    const error = await rejection(voice.startCall({ ...CALL, to: '+12025550105' }, { idempotencyKey: 'key-1' }));
    expect(error.code).toBe('compliance_dnc');
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, call: null, error: { code: 'compliance_dnc' } });
    // Nothing was created, so a new attempt is allowed at once.
    await expect(voice.startCall(CALL, { idempotencyKey: 'key-2' })).resolves.toMatchObject({ id: 'call-1' });
  });
});

describe('incoming INVITEs', () => {
  it('holds an INVITE that arrives before the 202 and accepts it once the 202 names the same call', async () => {
    const { voice, backend, sip, clock, timings } = await connected();
    const gate = backend.hold('createCall');
    const started = voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await clock.flush();
    // The service has placed the call and sent its INVITE; the 202 is still on its way.
    expect(backend.calls.has('call-1')).toBe(true);

    const invite = sip.invite('call-1');
    expect(invite.outcome).toBe('pending');
    gate.release();
    await started;
    expect(invite.outcome).toBe('accepted');
    expect(voice.status().audio).toBe('connecting');
    expect(timings.filter((t) => t.name === 'invite_received').map((t) => t.callId)).toEqual(['call-1']);
  });

  it('keeps holding its INVITE through a lost answer and accepts it when the retry names the call', async () => {
    const { voice, backend, sip } = await connected();
    backend.drop('createCall');
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));

    const invite = sip.invite('call-1');
    expect(invite.outcome).toBe('pending');
    await voice.startCall(CALL, { idempotencyKey: 'key-1' });
    expect(invite.outcome).toBe('accepted');
  });

  it('rejects a held INVITE when the service refuses the call: no call of ours was created', async () => {
    const { voice, backend, sip, clock } = await connected();
    const gate = backend.hold('createCall', { commit: false });
    const started = voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await clock.flush();
    // While our request is in flight an INVITE could be ours, so it is held; the refusal proves it is not.
    const invite = sip.invite('call-9');
    expect(invite.outcome).toBe('pending');
    gate.fail(httpError(403, 'compliance_dnc'));

    expect((await rejection(started)).code).toBe('compliance_dnc');
    expect(backend.calls.size).toBe(0);
    expect(invite.outcome).toBe('rejected');
  });

  it('rejects a held INVITE when the 202 names another call', async () => {
    const { voice, backend, sip, clock } = await connected();
    const gate = backend.hold('createCall');
    const started = voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await clock.flush();
    const stranger = sip.invite('call-77');
    gate.release();
    await started;
    expect(stranger.outcome).toBe('rejected');
  });

  it('drops a held INVITE the service withdrew (CANCEL) before the 202, and shows what the read of the call says', async () => {
    const { voice, backend, sip, clock, journal } = await connected();
    const gate = backend.hold('createCall');
    const started = voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await clock.flush();
    const invite = sip.invite('call-1');
    // As seen behind a real SIP proxy: INVITE held, the service gives up on it (CANCEL, 487), then the 202.
    sip.withdraw(invite);
    backend.setCall('call-1', { state: 'failed', endReason: 'invite_withdrawn' });
    gate.release();
    await started;
    await clock.flush();

    expect(journal).not.toContain('sip accept call-1 after its CANCEL');
    expect(invite.outcome).toBe('pending');
    // Read at once rather than at the next tick, and no advice to reconnect for a call the service withdrew.
    expect(backend.requestsOf('getCall')).toHaveLength(1);
    expect(voice.status()).toMatchObject({ busy: false, call: { id: 'call-1', state: 'failed', endReason: 'invite_withdrawn' }, error: null });
  });

  it('says nothing of connection_failed when the INVITE is withdrawn while being answered', async () => {
    const { voice, backend, sip, clock } = await inCall();
    const crossing = new FakeInvite('call-1', [], 0);
    // The CANCEL crosses our 200 OK: SIP.js refuses the answer of a terminated INVITE.
    crossing.accept = () => {
      crossing.withdrawn = true;
      backend.setCall('call-1', { state: 'failed', endReason: 'invite_withdrawn' });
      return Promise.reject(new Error('Invalid session state Terminated'));
    };
    sip.link.invites.set(crossing.id, crossing);
    sip.events.onInvite(crossing);
    await clock.flush();
    expect(voice.status()).toMatchObject({ busy: false, call: { state: 'failed' }, error: null });
  });

  it('still shows connection_failed when answering fails for a reason of its own', async () => {
    const { voice, sip, clock } = await inCall();
    const failing = new FakeInvite('call-1', [], 0);
    failing.accept = () => Promise.reject(new Error('no SDP'));
    sip.link.invites.set(failing.id, failing);
    sip.events.onInvite(failing);
    await clock.flush();
    expect(voice.status()).toMatchObject({ busy: true, error: { code: 'connection_failed' } });
  });

  it('answers the INVITE of its own call and rejects one with another call id', async () => {
    const { sip } = await inCall();
    const stranger = sip.invite('call-2');
    const own = sip.invite('call-1');
    expect(stranger.outcome).toBe('rejected');
    expect(own.outcome).toBe('accepted');
  });

  it('rejects an INVITE when there is no attempt', async () => {
    const { sip, voice } = await connected();
    expect(sip.invite('call-1').outcome).toBe('rejected');
    expect(sip.invite(undefined).outcome).toBe('rejected');
    expect(voice.status().audio).toBe('none');
  });
});

describe('hangup()', () => {
  it('keeps busy true with the ending state after hangup 202 until a terminal read', async () => {
    const { voice, backend, sip, clock } = await inCall();
    backend.setCall('call-1', { state: 'connected' });
    await clock.advance(1000);

    await voice.hangup();
    expect(backend.requestsOf('hangupCall').map((r) => r.id)).toEqual(['call-1']);
    expect(voice.status()).toMatchObject({ busy: true, call: { state: 'ending' } });

    // The service takes a while to bring the recipient leg down.
    await clock.advance(3000);
    expect(voice.status()).toMatchObject({ busy: true, call: { state: 'ending' } });

    backend.setCall('call-1', { state: 'ended', endReason: 'hangup' });
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, call: { state: 'ended', endReason: 'hangup' } });
    // Our half of the dialog is ended too, and the poller is gone.
    expect(sip.link.endedSessions).toBe(1);
    const reads = backend.requestsOf('getCall').length;
    await clock.advance(10_000);
    expect(backend.requestsOf('getCall')).toHaveLength(reads);
    // Only the session's expiry is still timed.
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextDueAt).toBeGreaterThan(clock.now() + 24 * 3600_000);
  });

  it('hangs up right after the 202 when called while createCall is in flight', async () => {
    const { voice, backend, clock } = await connected();
    const gate = backend.hold('createCall');
    const started = voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await clock.flush();

    await voice.hangup();
    expect(backend.requestsOf('hangupCall')).toHaveLength(0);

    gate.release();
    await started;
    await clock.flush();
    expect(backend.requestsOf('hangupCall').map((r) => r.id)).toEqual(['call-1']);
    expect(voice.status()).toMatchObject({ busy: true, call: { id: 'call-1', state: 'ending' } });
  });
});

describe('disconnect()', () => {
  it('hangs up a call, waits for the terminal read, then ends the session and closes the SIP link', async () => {
    const { voice, backend, sip, clock, journal } = await inCall();
    let done = false;
    const disconnecting = voice.disconnect().then(() => (done = true));
    await clock.flush();

    expect(backend.requestsOf('hangupCall').map((r) => r.id)).toEqual(['call-1']);
    expect(voice.status()).toMatchObject({ connection: 'disconnecting', busy: true });
    await clock.advance(2000);
    expect(done).toBe(false);
    expect(backend.requestsOf('endSession')).toHaveLength(0);
    expect(sip.link.closed).toBe(false);

    backend.setCall('call-1', { state: 'ended', endReason: 'hangup' });
    await clock.advance(1000);
    await disconnecting;

    expect(backend.requestsOf('endSession').map((r) => r.id)).toEqual(['session-1']);
    expect(sip.link.closed).toBe(true);
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null, busy: false, call: { state: 'ended' }, error: null });
    // The terminal read came before the session was ended.
    const lastRead = journal.lastIndexOf('backend getCall call-1');
    expect(journal.indexOf('backend hangupCall call-1')).toBeLessThan(lastRead);
    expect(lastRead).toBeLessThan(journal.indexOf('backend endSession session-1'));
    expect(clock.pendingTimers).toBe(0);
  });

  it('ends the session and closes the link at once when no call is active', async () => {
    const { voice, backend, sip } = await connected();
    await voice.disconnect();
    expect(backend.requestsOf('hangupCall')).toHaveLength(0);
    expect(backend.sessions.get('session-1')?.ended).toBe(true);
    expect(sip.link.closed).toBe(true);
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null });
  });
});

describe('status', () => {
  it('gives onStatus frozen snapshots that later changes do not alter', async () => {
    const { voice, statuses, clock, backend } = await inCall();
    backend.setCall('call-1', { state: 'connected' });
    await clock.advance(1000);

    expect(statuses.length).toBeGreaterThan(3);
    for (const snapshot of statuses) expect(Object.isFrozen(snapshot)).toBe(true);
    expect(new Set(statuses).size).toBe(statuses.length);
    expect(statuses[0]).toMatchObject({ connection: 'connecting', session: null, busy: false });
    expect(voice.status()).toBe(statuses.at(-1));
    expect(Object.isFrozen(voice.status())).toBe(true);
  });
});
