// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { VoiceBrowserError } from '../../../../lib/core/errors.js';
import { httpError, networkError } from '../../../../lib/testing/fake-backend.js';
import { FakeInvite } from '../../../../lib/testing/fake-sip.js';
import { CALL, START, connected, inCall, setup } from '../../../support/helper-world.js';
import { rejection } from '../../../support/rejection.js';

/** A session that expires one minute after the tests' start. */
const SOON = new Date(START + 60_000).toISOString();

describe('recover() (spec 4.9)', () => {
  it('leaves a fresh helper disconnected when the user has no session, loading no SIP', async () => {
    const { voice, sip, backend } = setup();
    const status = await voice.recover();
    expect(status).toMatchObject({ connection: 'disconnected', session: null, call: null, busy: false });
    expect(backend.requestsOf('getCurrentSession')).toHaveLength(1);
    expect(sip.links).toHaveLength(0);
  });

  it('restores the session and its call for cleanup only: recovery_required, polled, connect() refused', async () => {
    const before = await inCall();
    before.backend.setCall('call-1', { state: 'connected' });
    // The page reloads: a fresh helper on the same server.
    const { voice, sip, clock } = setup({ backend: before.backend });

    const status = await voice.recover();
    expect(status).toMatchObject({ connection: 'recovery_required', session: { id: 'session-1' }, busy: true, call: { id: 'call-1', state: 'connected' }, attempt: null });
    // Unknown fields of the call survive.
    expect(status.call?.['leg']).toEqual({ provider: 'fake', region: 'test-1' });
    expect((await rejection(voice.connect())).code).toBe('browser_session_unavailable');
    expect((await rejection(voice.renew())).code).toBe('browser_agent_busy');
    // No audio or credentials are restored (spec 4.9): no SIP at all.
    expect(sip.links).toHaveLength(0);

    // The call is polled: the service moves it on and the page sees it.
    before.backend.setCall('call-1', { state: 'ending' });
    await clock.advance(1000);
    expect(voice.status().call?.state).toBe('ending');
  });

  it("reports a recovered call's milestones without sinceStartMs: it did not start in this page", async () => {
    const before = await inCall();
    const { voice, clock, timings } = setup({ backend: before.backend });
    await voice.recover();
    before.backend.setCall('call-1', { state: 'connected' });
    await clock.advance(1000);
    before.backend.setCall('call-1', { state: 'ended' });
    await clock.advance(1000);
    expect(timings.map((t) => t.name)).toEqual(['connected', 'ended']);
    for (const event of timings) {
      expect(event).toEqual({ name: event.name, callId: 'call-1', at: expect.any(Number) });
      expect(event).not.toHaveProperty('sinceStartMs');
    }
  });

  it('cleans up with hangup() and disconnect(), after which connect() works again', async () => {
    const before = await inCall();
    const after = setup({ backend: before.backend });
    await after.voice.recover();

    await after.voice.hangup();
    expect(before.backend.requestsOf('hangupCall').map((r) => r.id)).toEqual(['call-1']);
    const disconnecting = after.voice.disconnect();
    before.backend.setCall('call-1', { state: 'ended' });
    await after.clock.advance(1000);
    await disconnecting;
    expect(after.voice.status()).toMatchObject({ connection: 'disconnected', session: null, busy: false, call: { state: 'ended' } });
    expect(before.backend.sessions.get('session-1')?.ended).toBe(true);
    expect(after.clock.pendingTimers).toBe(0);

    await after.voice.connect();
    expect(after.voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-2' } });
  });

  it('makes a connect() called while it reads wait for its answer: refused when a session is found', async () => {
    const before = await inCall();
    const { voice, backend, sip } = setup({ backend: before.backend });
    const read = backend.hold('getCurrentSession');
    const recovering = voice.recover();
    const connecting = rejection(voice.connect());
    read.release();
    await recovering;
    const refused = await connecting;
    expect(refused.code).toBe('browser_session_unavailable');
    expect(refused.message).toContain('disconnect()');
    expect(sip.links).toHaveLength(0);
  });

  it('makes a connect() called while it reads go on to connect when no session is found', async () => {
    const { voice, backend } = setup();
    const read = backend.hold('getCurrentSession');
    const recovering = voice.recover();
    const connecting = voice.connect();
    expect(backend.requestsOf('createSession')).toHaveLength(0);
    read.release();
    await recovering;
    await connecting;
    expect(voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-1' } });
  });

  it('is refused once the helper holds a session', async () => {
    const { voice } = await connected();
    expect((await rejection(voice.recover())).code).toBe('browser_session_unavailable');
  });

  it('reports a failed read with its code and stays disconnected', async () => {
    const { voice, backend } = setup();
    backend.fail('getCurrentSession', networkError());
    expect((await rejection(voice.recover())).code).toBe('network_error');
    expect(voice.status()).toMatchObject({ connection: 'disconnected', error: { code: 'network_error' } });
  });
});

describe('renew() (spec 3.2, 4.9)', () => {
  it('replaces the session while idle: new credentials registered, the old link closed and the old session ended', async () => {
    const { voice, sip, backend, timings } = await connected();
    await voice.renew();
    expect(voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-2' }, error: null });
    expect(sip.links).toHaveLength(2);
    expect(sip.links[0]?.closed).toBe(true);
    expect(sip.link.options.transport.authorizationUsername).toBe('session-2');
    expect(backend.sessions.get('session-1')?.ended).toBe(true);
    expect(timings.map((t) => t.name)).toEqual(['session_created', 'registered', 'session_created', 'registered']);
  });

  it('is refused during a call with browser_agent_busy, changing nothing', async () => {
    const { voice, backend } = await inCall();
    expect((await rejection(voice.renew())).code).toBe('browser_agent_busy');
    expect(backend.requestsOf('createSession')).toHaveLength(1);
    expect(voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-1' }, busy: true });
  });

  it('keeps the old session when the new one cannot be created', async () => {
    const { voice, backend, sip } = await connected();
    backend.fail('createSession', httpError(503, 'provider_error'));
    expect((await rejection(voice.renew())).code).toBe('provider_error');
    expect(voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-1' }, error: { code: 'provider_error' } });
    expect(sip.link.closed).toBe(false);
  });

  it('shows expired when the new session was made but could not register, ending the new one', async () => {
    const { voice, backend, sip } = await connected();
    sip.failOpenWith = new VoiceBrowserError('connection_failed', 'SIP registration failed: 403');
    expect((await rejection(voice.renew())).code).toBe('connection_failed');
    expect(voice.status()).toMatchObject({ connection: 'expired', session: { id: 'session-1' } });
    expect(backend.sessions.get('session-2')?.ended).toBe(true);
    await voice.renew();
    expect(voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-3' } });
  });

  it('ignores the old link once renewed: its INVITEs are refused and its drop changes nothing', async () => {
    const { voice, sip } = await connected();
    const old = sip.link;
    await voice.renew();
    await voice.startCall(CALL, { idempotencyKey: 'key-1' });
    old.options.events.onDisconnected(new VoiceBrowserError('connection_failed', 'old socket closed'));
    expect(voice.status().connection).toBe('ready');
    const stray = new FakeInvite('call-1', [], 0);
    old.invites.set(stray.id, stray);
    old.options.events.onInvite(stray);
    expect(stray.outcome).toBe('rejected');
  });
});

describe('expiry (spec 3.2)', () => {
  it('blocks new calls once the session expires, and renew() makes calls possible again', async () => {
    const { voice, clock, backend } = await connected({ expiresAt: SOON });
    await clock.advance(60_000);
    expect(voice.status()).toMatchObject({ connection: 'expired', error: { code: 'browser_session_unavailable' } });
    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }))).code).toBe('browser_session_unavailable');
    expect(backend.requestsOf('createCall')).toHaveLength(0);

    backend.sessionExpiresAt = '2030-01-01T00:00:00.000Z';
    await voice.renew();
    await expect(voice.startCall(CALL, { idempotencyKey: 'key-1' })).resolves.toMatchObject({ sessionId: 'session-2' });
  });

  it('lets an accepted call run on past the expiry, polled and hangable, and renew() waits for its end', async () => {
    const { voice, clock, backend } = await inCall({ expiresAt: SOON });
    backend.setCall('call-1', { state: 'connected' });
    await clock.advance(61_000);
    expect(voice.status()).toMatchObject({ connection: 'expired', busy: true, call: { state: 'connected' } });
    expect((await rejection(voice.renew())).code).toBe('browser_agent_busy');

    await voice.hangup();
    backend.setCall('call-1', { state: 'ended' });
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ connection: 'expired', busy: false });
    await voice.renew();
    expect(voice.status().connection).toBe('ready');
  });

  it('shows expired when the service refuses a call for the session (409 browser_session_unavailable), and renew() recovers', async () => {
    const { voice, backend } = await connected();
    backend.fail('createCall', httpError(409, 'browser_session_unavailable'));
    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }))).code).toBe('browser_session_unavailable');
    expect(voice.status()).toMatchObject({ connection: 'expired', busy: false, attempt: null, error: { code: 'browser_session_unavailable' } });
    // No second request is sent for a session the service said is gone.
    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-2' }))).code).toBe('browser_session_unavailable');
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    await voice.renew();
    await expect(voice.startCall(CALL, { idempotencyKey: 'key-3' })).resolves.toMatchObject({ sessionId: 'session-2' });
  });

  it('treats a registration the registrar ended as expiry', async () => {
    const { voice, sip } = await connected();
    sip.events.onDisconnected(new VoiceBrowserError('browser_session_unavailable', 'the SIP registration ended'));
    expect(voice.status()).toMatchObject({ connection: 'expired', session: { id: 'session-1' } });
  });
});

describe('the SIP connection', () => {
  it('shows reconnecting while the link restores itself, then ready', async () => {
    const { voice, sip } = await connected();
    sip.events.onReconnecting();
    expect(voice.status().connection).toBe('reconnecting');
    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }))).code).toBe('browser_session_unavailable');
    sip.events.onReconnected();
    expect(voice.status()).toMatchObject({ connection: 'ready', error: null });
  });

  it('shows expired keeping the session when the link ends, and disconnect() still ends the session', async () => {
    const { voice, sip, backend } = await connected();
    sip.events.onReconnecting();
    sip.events.onDisconnected(new VoiceBrowserError('browser_session_unavailable', 'the SIP credentials were refused'));
    expect(voice.status()).toMatchObject({ connection: 'expired', session: { id: 'session-1' }, error: { code: 'browser_session_unavailable' } });
    await voice.disconnect();
    expect(backend.sessions.get('session-1')?.ended).toBe(true);
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null });
  });
});

describe('audio', () => {
  it('shows audio_playback_blocked and clears it once resumeAudio() plays', async () => {
    const { voice, sip } = await inCall();
    sip.invite('call-1');
    sip.events.onMediaConnected('call-1');
    sip.events.onAudio('blocked');
    expect(voice.status()).toMatchObject({ audio: 'blocked', error: { code: 'audio_playback_blocked' } });
    await voice.resumeAudio();
    expect(sip.link.resumed).toBe(1);
    expect(voice.status()).toMatchObject({ audio: 'playing', error: null });
  });
});

describe('disconnect()', () => {
  it('gives up a lost attempt only once a read after the session ended shows no call of it running', async () => {
    const { voice, backend, clock, sip, journal } = await connected();
    backend.fail('createCall', networkError());
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    const done = voice.disconnect();
    await clock.advance(3000);
    await done;
    expect(backend.sessions.get('session-1')?.ended).toBe(true);
    expect(sip.link.closed).toBe(true);
    // spec 3.2: the session's end is not the proof; the read after it is.
    expect(journal.slice(journal.indexOf('backend endSession session-1'))).toEqual(['backend endSession session-1', 'backend getCurrentSession']);
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null, busy: false, attempt: null, error: null });
    expect(clock.pendingTimers).toBe(0);
  });

  it('stays busy with cleanup_unknown when no read after the end succeeds, and disconnect() again proves it', async () => {
    const { voice, backend, clock } = await connected();
    backend.fail('createCall', networkError());
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    // The reconciling reads and the one after the session's end all go unanswered.
    for (let i = 0; i < 5; i++) backend.fail('getCurrentSession', networkError());
    const first = rejection(voice.disconnect());
    await clock.advance(3000);
    expect((await first).code).toBe('cleanup_unknown');
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null, busy: true, attempt: { phase: 'outcome_unknown' }, error: { code: 'cleanup_unknown' } });
    expect(clock.pendingTimers).toBe(0);
    // Nothing was proven, so no new session may start over it.
    expect((await rejection(voice.connect())).code).toBe('cleanup_unknown');
    expect(backend.requestsOf('createSession')).toHaveLength(1);

    backend.heal('getCurrentSession');
    await voice.disconnect();
    expect(backend.requestsOf('endSession')).toHaveLength(1);
    expect(voice.status()).toMatchObject({ connection: 'disconnected', busy: false, attempt: null, error: null });
    await voice.connect();
    expect(voice.status().connection).toBe('ready');
  });

  it("keeps busy through disconnect() while a lost attempt's call is still ending after the session ended", async () => {
    const { voice, backend, clock } = await connected();
    backend.sessionEndLeavesCallsEnding = true;
    backend.drop('createCall');
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    let settled = false;
    const done = voice.disconnect().finally(() => (settled = true));
    await clock.advance(3000);
    expect(backend.calls.get('call-1')?.state).toBe('ending');
    expect(voice.status()).toMatchObject({ busy: true, call: { id: 'call-1', state: 'ending' } });
    expect(settled).toBe(false);

    backend.setCall('call-1', { state: 'ended', endReason: 'session_ended' });
    await clock.advance(1000);
    await done;
    expect(voice.status()).toMatchObject({ connection: 'disconnected', busy: false, call: { state: 'ended' }, error: null });
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps busy when the call still runs after the session ended and the reads gave up', async () => {
    const { voice, backend, clock } = await inCall();
    backend.sessionEndLeavesCallsEnding = true;
    // The hangup is refused, and the session's end leaves the call ending at the service for good.
    backend.fail('hangupCall', httpError(503, 'provider_error'));
    const done = rejection(voice.disconnect());
    await clock.advance(20_000);
    expect((await done).code).toBe('cleanup_unknown');
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null, busy: true, call: { state: 'ending' } });
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps the session and says cleanup_unknown when ending it fails, so disconnect() can be called again', async () => {
    const { voice, backend } = await connected();
    backend.fail('endSession', httpError(503, 'provider_error'));
    expect((await rejection(voice.disconnect())).code).toBe('cleanup_unknown');
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: { id: 'session-1' } });
    await voice.disconnect();
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null, error: null });
  });

  it('leaves no timer, link or request behind', async () => {
    const { voice, backend, clock, sip } = await inCall();
    backend.setCall('call-1', { state: 'ended' });
    await clock.advance(1000);
    await voice.disconnect();
    expect(sip.link.closed).toBe(true);
    expect(clock.pendingTimers).toBe(0);
    const requests = backend.requests.length;
    await clock.advance(3_600_000);
    expect(backend.requests).toHaveLength(requests);
    expect(voice.status()).toMatchObject({ connection: 'disconnected', session: null, busy: false, error: null });
  });
});
