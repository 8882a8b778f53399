// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { VoiceBrowserError } from '../../../../lib/core/errors.js';
import { RECONCILE_READS } from '../../../../lib/runtime/reconcile.js';
import { EXPECT_RETRY_MS } from '../../../../lib/runtime/poller.js';
import { httpError, networkError } from '../../../../lib/testing/fake-backend.js';
import { CALL, connected, inCall, talking } from '../../../support/helper-world.js';
import { rejection } from '../../../support/rejection.js';
import { canSendDtmf } from '../../../../lib/core/status-rules.js';

describe('mute()', () => {
  it('mutes the outgoing audio of the link and shows it, and unmutes again', async () => {
    const { voice, sip } = await talking();
    voice.mute(true);
    expect(sip.link.muted).toBe(true);
    expect(voice.status().muted).toBe(true);
    voice.mute(false);
    expect(sip.link.muted).toBe(false);
    expect(voice.status().muted).toBe(false);
  });

  it('keeps the wish before a call so the next call starts muted, and refuses a non-boolean', async () => {
    const { voice, sip } = await connected();
    voice.mute(true);
    expect(sip.link.muted).toBe(true);
    expect(() => voice.mute('yes' as unknown as boolean)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(voice.status()).toMatchObject({ muted: true, error: { code: 'invalid_argument' } });
  });
});

describe('sendDtmf()', () => {
  it('sends each of 0-9 * # A-D once, in order', async () => {
    const { voice, sip } = await talking();
    const digits = [...'0123456789*#ABCD'];
    for (const digit of digits) await voice.sendDtmf(digit);
    expect(sip.link.digits).toEqual(digits);
  });

  it('refuses anything but exactly one uppercase keypad digit, sending nothing', async () => {
    const { voice, sip } = await talking();
    for (const bad of ['', '12', 'a', 'E', ' 1', '1 ', '#*', 5, null]) {
      const error = await rejection(voice.sendDtmf(bad as string));
      expect(error.code, JSON.stringify(bad)).toBe('invalid_argument');
    }
    expect(sip.link.digits).toEqual([]);
    expect(voice.status().error?.code).toBe('invalid_argument');
  });

  it('refuses a digit before the call has audio with no_active_call', async () => {
    const { voice, sip } = await inCall();
    expect((await rejection(voice.sendDtmf('5'))).code).toBe('no_active_call');
    expect(sip.link.digits).toEqual([]);
  });

  it('reports a digit whose delivery is uncertain and never resends it', async () => {
    const { voice, sip, clock, journal } = await talking();
    sip.link.failNextDtmfWith = new VoiceBrowserError('dtmf_outcome_unknown', 'INFO got no answer');
    expect((await rejection(voice.sendDtmf('7'))).code).toBe('dtmf_outcome_unknown');
    await clock.advance(5000);
    expect(journal.filter((line) => line === 'sip dtmf 7')).toHaveLength(1);
    expect(voice.status().error?.code).toBe('dtmf_outcome_unknown');
  });
});

describe('a lost createCall answer (spec 7: reconcile without redialing)', () => {
  it('finds the call by reading the current session and adopts it without a second createCall', async () => {
    const { voice, backend, clock } = await connected();
    backend.drop('createCall');
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    expect(voice.status().attempt?.phase).toBe('outcome_unknown');

    await clock.advance(1000);
    expect(backend.requestsOf('getCurrentSession')).toHaveLength(1);
    expect(voice.status()).toMatchObject({ busy: true, error: null, call: { id: 'call-1' }, attempt: { idempotencyKey: 'key-1', phase: 'admitted' } });
    expect(backend.requestsOf('createCall')).toHaveLength(1);

    // From here the call itself is polled, and the reconciling reads stop.
    await clock.advance(3000);
    expect(backend.requestsOf('getCurrentSession')).toHaveLength(1);
    expect(backend.requestsOf('getCall').length).toBeGreaterThanOrEqual(2);
    // A retry with the same key now returns the call it found, asking nothing.
    await expect(voice.startCall(CALL, { idempotencyKey: 'key-1' })).resolves.toMatchObject({ id: 'call-1' });
    expect(backend.requestsOf('createCall')).toHaveLength(1);
  });

  it('keeps reading while the current session shows no new call of its own, and never redials', async () => {
    const { voice, backend, clock } = await connected();
    backend.fail('createCall', networkError());
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    await clock.advance(5000);
    expect(backend.requestsOf('getCurrentSession').length).toBeGreaterThanOrEqual(4);
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    expect(voice.status()).toMatchObject({ busy: true, attempt: { phase: 'outcome_unknown' }, call: null });
  });

  it('stops reconciling after a bounded number of reads, keeping the attempt for a retry with its key', async () => {
    const { voice, backend, clock } = await connected();
    backend.fail('createCall', networkError());
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    await clock.advance(RECONCILE_READS * 1000 + 60_000);
    expect(backend.requestsOf('getCurrentSession')).toHaveLength(RECONCILE_READS);
    // spec 7: nothing proved the outcome, so busy stays and the page is told how to learn it.
    expect(voice.status()).toMatchObject({ busy: true, attempt: { phase: 'outcome_unknown' }, error: { code: 'call_outcome_unknown' } });
    expect(voice.status().error?.message).toContain('same idempotencyKey');
    await expect(voice.startCall(CALL, { idempotencyKey: 'key-1' })).resolves.toMatchObject({ id: 'call-1' });
    expect(backend.calls.size).toBe(1);
  });

  it('counts failed reconciling reads too, so a service that cannot be read is not read for ever', async () => {
    const { voice, backend, clock } = await connected();
    backend.fail('createCall', networkError());
    for (let i = 0; i < 100; i++) backend.fail('getCurrentSession', httpError(503, 'upstream_unavailable'));
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    await clock.advance(120_000);
    expect(backend.requestsOf('getCurrentSession')).toHaveLength(RECONCILE_READS);
    expect(voice.status()).toMatchObject({ busy: true, error: { code: 'call_outcome_unknown' } });
  });

  it('does not adopt a call of another session', async () => {
    const { voice, backend, clock } = await connected();
    backend.fail('createCall', networkError());
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    // Another tab's session places a call that the current-session read shows.
    await backend.createCall({ ...CALL, sessionId: 'session-9' }, { idempotencyKey: 'other-tab', signal: new AbortController().signal });
    await clock.advance(3000);
    expect(voice.status()).toMatchObject({ attempt: { phase: 'outcome_unknown' }, call: null });
  });

  it('refuses a retry with the same key but other input, sending nothing', async () => {
    const { voice, backend } = await connected();
    backend.fail('createCall', networkError());
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    const error = await rejection(voice.startCall({ ...CALL, to: '+12025550101' }, { idempotencyKey: 'key-1' }));
    expect(error.code).toBe('invalid_argument');
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    expect(voice.status()).toMatchObject({ busy: true, attempt: { phase: 'outcome_unknown', input: CALL } });
  });

  it('clears an earlier refusal from the status once a new call starts', async () => {
    const { voice } = await connected();
    expect((await rejection(voice.startCall({ ...CALL, to: '12345' }, { idempotencyKey: 'key-1' }))).code).toBe('invalid_argument');
    expect(voice.status().error?.code).toBe('invalid_argument');
    await voice.startCall(CALL, { idempotencyKey: 'key-2' });
    expect(voice.status()).toMatchObject({ error: null, busy: true, attempt: { phase: 'admitted' } });
  });

  it('takes a retry whose customData has the same pairs written in another order', async () => {
    const { voice, backend } = await connected();
    backend.fail('createCall', networkError());
    await rejection(voice.startCall({ ...CALL, customData: { ticket: '42', agent: 'ann' } }, { idempotencyKey: 'key-1' }));
    await expect(voice.startCall({ ...CALL, customData: { agent: 'ann', ticket: '42' } }, { idempotencyKey: 'key-1' })).resolves.toMatchObject({ id: 'call-1' });
    expect(backend.calls.size).toBe(1);
  });

  it('stays unknown when the retry meets idempotency_conflict: something exists under the key', async () => {
    const { voice, backend } = await connected();
    backend.fail('createCall', networkError());
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    backend.fail('createCall', httpError(409, 'idempotency_conflict'));
    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }))).code).toBe('call_outcome_unknown');
    expect(voice.status()).toMatchObject({ busy: true, attempt: { phase: 'outcome_unknown' } });
  });

  it('hangs up a call the reads find after hangup() was asked while the outcome was unknown', async () => {
    const { voice, backend, clock, sip } = await connected();
    backend.drop('createCall');
    await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }));
    const invite = sip.invite('call-1');
    await voice.hangup();
    // Our leg is refused at once: that alone ends the call at the service.
    expect(invite.outcome).toBe('rejected');

    await clock.advance(1000);
    expect(backend.requestsOf('hangupCall').map((r) => r.id)).toEqual(['call-1']);
    expect(voice.status()).toMatchObject({ busy: true, call: { state: 'ending' } });
  });

  it('keeps a hangup asked while createCall was in flight when that answer is lost', async () => {
    const { voice, backend, clock } = await connected();
    const gate = backend.hold('createCall');
    const started = voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await clock.flush();
    await voice.hangup();
    gate.fail(networkError());
    await rejection(started);

    await clock.advance(1000);
    expect(backend.requestsOf('hangupCall').map((r) => r.id)).toEqual(['call-1']);
  });
});

describe('a refused key (the proxy answers 403 browser_voice_unavailable)', () => {
  it('is a definite no: busy false at once, the code shown, no reconciling reads', async () => {
    const { voice, backend, clock } = await connected();
    backend.fail('createCall', httpError(403, 'browser_voice_unavailable'));
    expect((await rejection(voice.startCall(CALL, { idempotencyKey: 'key-1' }))).code).toBe('browser_voice_unavailable');
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, error: { code: 'browser_voice_unavailable' } });
    await clock.advance(10_000);
    expect(backend.requests.filter((r) => r.op === 'getCurrentSession' || r.op === 'getCall')).toHaveLength(0);
  });
});

describe('the call\'s media path', () => {
  it('tells the page when ICE or DTLS fails: audio failed, audio_path_failed in words, busy kept, the call read at once', async () => {
    const { voice, sip, backend, clock } = await talking();
    const reads = backend.requestsOf('getCall').length;
    sip.events.onMediaFailed('call-1');
    expect(voice.status()).toMatchObject({ audio: 'failed', busy: true, call: { state: 'connected' }, error: { code: 'audio_path_failed' } });
    // The call still runs at the service: no word of hanging up and calling again.
    expect(voice.status().error?.message).not.toMatch(/hang up|call again/);
    await clock.advance(0);
    expect(backend.requestsOf('getCall').length).toBe(reads + 1);
  });

  it('never shows playing for a call whose media never connected, though its audio element plays', async () => {
    const { voice, sip, statuses } = await talking();
    sip.events.onAudio('playing');
    sip.events.onWarning('call-1', 'no_audio_path', true);
    expect(voice.status()).toMatchObject({ audio: 'connecting', warnings: ['no_audio_path'], call: { state: 'connected' }, error: null });
    sip.events.onMediaReconnecting('call-1');
    sip.events.onMediaFailed('call-1');
    expect(voice.status()).toMatchObject({ audio: 'failed', error: { code: 'audio_path_failed', message: expect.stringContaining('no audio ever flowed') } });
    expect(statuses.map((status) => status.audio)).not.toContain('playing');
  });

  it('shows held while the far end holds the call, with no error and busy kept, and what played before once off hold', async () => {
    const { voice, sip } = await talking();
    sip.events.onAudio('playing');
    sip.events.onMediaConnected('call-1');
    sip.events.onMediaHeld('call-1', true);
    expect(voice.status()).toMatchObject({ audio: 'held', busy: true, call: { state: 'connected' }, error: null });
    sip.events.onMediaHeld('call-1', false);
    expect(voice.status()).toMatchObject({ audio: 'playing', error: null });
  });

  it('shows playing once the media path connects, whichever of it and the audio element came first', async () => {
    const { voice, sip } = await talking();
    sip.events.onMediaConnected('call-1');
    expect(voice.status().audio).toBe('connecting');
    sip.events.onAudio('playing');
    expect(voice.status().audio).toBe('playing');
  });

  it('takes digits on a connected call whose audio path is missing, as the keypad offers them, and refuses them in the words of what shows', async () => {
    const { voice, sip } = await talking();
    sip.events.onMediaReconnecting('call-1');
    sip.events.onMediaFailed('call-1');
    expect(canSendDtmf(voice.status())).toBe(true);
    await voice.sendDtmf('5');
    expect(sip.link.digits).toEqual(['5']);

    const waiting = await inCall();
    expect(canSendDtmf(waiting.voice.status())).toBe(false);
    const refusal = await rejection(waiting.voice.sendDtmf('5'));
    expect(refusal).toMatchObject({ code: 'no_active_call', message: expect.stringContaining('has not answered its INVITE') });
  });

  it('shows reconnecting while ICE restarts, then the playback it had, with a timing at each end', async () => {
    const { voice, sip, clock, timings } = await talking();
    sip.events.onAudio('playing');
    sip.events.onMediaConnected('call-1');
    await clock.advance(3000);
    sip.events.onMediaReconnecting('call-1');
    expect(voice.status()).toMatchObject({ audio: 'reconnecting', busy: true, error: null });
    await clock.advance(2500);
    sip.events.onMediaConnected('call-1');
    expect(voice.status().audio).toBe('playing');
    const around = timings.filter((event) => event.name === 'media_reconnecting' || event.name === 'media_reconnected');
    expect(around.map((event) => [event.name, event.callId, event.at - (around[0]?.at ?? 0)])).toEqual([
      ['media_reconnecting', 'call-1', 0],
      ['media_reconnected', 'call-1', 2500],
    ]);
    // The first media_connected milestone is not told again by the restart.
    expect(timings.filter((event) => event.name === 'media_connected')).toHaveLength(1);
  });

  it('keeps showing reconnecting when the playback changes during the restart, and shows that change after it', async () => {
    const { voice, sip } = await talking();
    sip.events.onAudio('playing');
    sip.events.onMediaReconnecting('call-1');
    sip.events.onAudio('blocked');
    expect(voice.status()).toMatchObject({ audio: 'reconnecting', error: { code: 'audio_playback_blocked' } });
    sip.events.onMediaConnected('call-1');
    expect(voice.status().audio).toBe('blocked');
  });

  it('ends reconnecting in audio_path_failed when every restart failed', async () => {
    const { voice, sip } = await talking();
    sip.events.onAudio('playing');
    sip.events.onMediaConnected('call-1');
    sip.events.onMediaReconnecting('call-1');
    sip.events.onMediaFailed('call-1');
    expect(voice.status()).toMatchObject({ audio: 'failed', busy: true, error: { code: 'audio_path_failed', message: expect.stringContaining('the path was lost') } });
  });

  it('shows each warning while it is raised, tells it in onTiming, and clears them all when the call ends', async () => {
    const { voice, sip, backend, clock, timings } = await talking();
    sip.events.onAudio('playing');
    sip.events.onWarning('call-1', 'no_inbound_audio', true);
    sip.events.onWarning('call-1', 'high_rtt', true);
    expect(voice.status().warnings).toEqual(['no_inbound_audio', 'high_rtt']);
    sip.events.onWarning('call-1', 'no_inbound_audio', false);
    expect(voice.status().warnings).toEqual(['high_rtt']);
    sip.events.onWarning('call-9', 'silent_microphone', true);
    expect(voice.status().warnings).toEqual(['high_rtt']);
    const told = timings.filter((event) => event.name.startsWith('warning_')).map((event) => [event.name, event.warning, event.callId]);
    expect(told).toEqual([
      ['warning_raised', 'no_inbound_audio', 'call-1'],
      ['warning_raised', 'high_rtt', 'call-1'],
      ['warning_cleared', 'no_inbound_audio', 'call-1'],
    ]);
    backend.setCall('call-1', { state: 'ended', busy: false });
    await clock.advance(1500);
    expect(voice.status()).toMatchObject({ busy: false, warnings: [] });
  });

  it('tells of a microphone lost mid-call: replaced in onTiming; none left as microphone_unavailable, cleared by the next one', async () => {
    const { voice, sip, timings } = await talking();
    sip.events.onMicrophone('call-1', 'replaced');
    expect(voice.status()).toMatchObject({ busy: true, error: null });
    sip.events.onMicrophone('call-1', 'unavailable');
    expect(voice.status()).toMatchObject({ busy: true, call: { state: 'connected' }, error: { code: 'microphone_unavailable' } });
    sip.events.onMicrophone('call-1', 'replaced');
    expect(voice.status().error).toBeNull();
    sip.events.onMicrophone('call-9', 'unavailable');
    expect(voice.status().error).toBeNull();
    expect(timings.filter((event) => event.name.startsWith('microphone_')).map((event) => event.name)).toEqual(['microphone_replaced', 'microphone_lost', 'microphone_replaced']);
  });

  it('ignores a media failure of another call', async () => {
    const { voice, sip } = await talking();
    const before = voice.status();
    sip.events.onMediaFailed('call-9');
    sip.events.onMediaReconnecting('call-9');
    expect(voice.status()).toBe(before);
  });
});

/** A call whose hangup (of call-1) gets no answer yet, ended meanwhile by the service itself; `late` answers it. */
async function endedUnderUnansweredHangup() {
  const world = await talking();
  const { voice, backend, sip, clock } = world;
  const late = backend.hold('hangupCall', { commit: false });
  const first = voice.hangup();
  await clock.flush();
  backend.setCall('call-1', { state: 'ended', busy: false });
  sip.events.onSessionEnded('call-1');
  await clock.flush();
  return { ...world, late, first };
}

describe('hangup() and reads', () => {
  it('reads the call at once when the service signals a change in the dialog, not at the next tick', async () => {
    const { voice, backend, sip, clock } = await inCall();
    sip.invite('call-1');
    await clock.flush();
    const reads = backend.requestsOf('getCall').length;
    backend.setCall('call-1', { state: 'connected' });
    sip.events.onCallChanged('call-1');
    await clock.flush();
    expect(backend.requestsOf('getCall')).toHaveLength(reads + 1);
    expect(voice.status().call?.state).toBe('connected');
  });

  it('reads again soon when the read after our answer still shows waiting_agent (the service had not written it yet)', async () => {
    const { voice, backend, sip, clock } = await inCall();
    expect(voice.status().call?.state).toBe('waiting_agent');
    const before = backend.requestsOf('getCall').length;
    sip.invite('call-1');
    await clock.flush();
    // The read right after the 200 OK raced the service: still waiting_agent.
    expect(backend.requestsOf('getCall')).toHaveLength(before + 1);
    expect(voice.status().call?.state).toBe('waiting_agent');

    backend.setCall('call-1', { state: 'connected' });
    await clock.advance(EXPECT_RETRY_MS);
    expect(backend.requestsOf('getCall')).toHaveLength(before + 2);
    expect(voice.status().call?.state).toBe('connected');
    // Then once a second again.
    await clock.advance(999);
    expect(backend.requestsOf('getCall')).toHaveLength(before + 2);
    await clock.advance(1);
    expect(backend.requestsOf('getCall')).toHaveLength(before + 3);
  });

  it('reads again soon after a BYE until the read shows the end, past an ending still busy', async () => {
    const { voice, backend, sip, clock } = await talking();
    expect(voice.status().call?.state).toBe('connected');
    const before = backend.requestsOf('getCall').length;
    // The service sent its BYE while taking the legs down: the read that follows says ending, still busy.
    backend.setCall('call-1', { state: 'ending' });
    sip.events.onSessionEnded('call-1');
    await clock.flush();
    expect(backend.requestsOf('getCall')).toHaveLength(before + 1);
    expect(voice.status()).toMatchObject({ busy: true, call: { state: 'ending' } });
    backend.setCall('call-1', { state: 'ended', busy: false });
    await clock.advance(EXPECT_RETRY_MS);
    expect(voice.status()).toMatchObject({ busy: false, call: { state: 'ended' } });
    expect(backend.requestsOf('getCall')).toHaveLength(before + 2);
  });

  it('sends one hangup for two clicks', async () => {
    const { voice, backend } = await inCall();
    await Promise.all([voice.hangup(), voice.hangup()]);
    expect(backend.requestsOf('hangupCall')).toHaveLength(1);
  });

  it('hangs up the call shown while the hangup of an earlier call still waits for its answer', async () => {
    const { voice, backend, clock, late, first } = await endedUnderUnansweredHangup();
    expect(voice.status()).toMatchObject({ busy: false, call: { id: 'call-1', state: 'ended' } });

    // The next call's hangup is a request of its own, not a wait for the earlier call's answer.
    const next = await voice.startCall(CALL, { idempotencyKey: 'key-2' });
    // A double click on it is still one request.
    const second = Promise.all([voice.hangup(), voice.hangup()]);
    await clock.flush();
    expect(backend.requestsOf('hangupCall').map((request) => request.id)).toEqual(['call-1', next.id]);
    await second;
    expect(voice.status()).toMatchObject({ busy: true, call: { id: next.id, state: 'ending' } });
    // The earlier call's answer, when it comes, changes nothing of this one.
    late.release();
    await first;
    expect(voice.status()).toMatchObject({ busy: true, call: { id: next.id, state: 'ending' } });
    backend.setCall(next.id, { state: 'ended', busy: false });
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: false, call: { id: next.id, state: 'ended' } });
  });

  it('leaves the call shown alone when the hangup of an earlier call fails late', async () => {
    const { voice, sip, clock, late, first } = await endedUnderUnansweredHangup();
    const next = await voice.startCall(CALL, { idempotencyKey: 'key-2' });
    await clock.flush();
    const before = sip.link.endedSessions;

    // The earlier call's hangup fails now: its SIP fallback is not the next call's to take, nor its error to show.
    late.fail(httpError(503, 'provider_error'));
    await expect(first).rejects.toMatchObject({ code: 'provider_error' });
    await clock.flush();
    expect(sip.link.endedSessions).toBe(before);
    expect(voice.status()).toMatchObject({ busy: true, error: null, call: { id: next.id } });
  });

  it('shows a failed read in status.error and clears it when a read succeeds', async () => {
    const { voice, backend, clock } = await inCall();
    backend.fail('getCall', httpError(503, 'provider_error'));
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: true, error: { code: 'provider_error' } });
    await clock.advance(1000);
    expect(voice.status().error).toBeNull();
  });

  it('waits the Retry-After of a 429 even when a SIP event asks for a read at once', async () => {
    const { voice, backend, clock, sip } = await inCall();
    backend.fail('getCall', httpError(429, 'rate_limited', 5000));
    await clock.advance(1000);
    const reads = backend.requestsOf('getCall').length;
    sip.invite('call-1');
    sip.events.onSessionEnded('call-1');
    await clock.advance(4000);
    expect(backend.requestsOf('getCall')).toHaveLength(reads);
    await clock.advance(1000);
    expect(backend.requestsOf('getCall')).toHaveLength(reads + 1);
    expect(voice.status().error).toBeNull();
  });

  it('shows why startCall() refused: busy, bad input, no session', async () => {
    const world = await inCall();
    await rejection(world.voice.startCall(CALL, { idempotencyKey: 'key-2' }));
    expect(world.voice.status().error?.code).toBe('browser_agent_busy');
    await rejection(world.voice.startCall({ ...CALL, to: 'x' }, { idempotencyKey: 'key-3' }));
    expect(world.voice.status().error?.code).toBe('invalid_argument');
  });
});
