// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { httpError, networkError } from '../../../../lib/testing/index.js';
import { connected, inCall, talking } from '../../../support/helper-world.js';
import { rejection } from '../../../support/rejection.js';

/**
 * Supervisors and recordings in the page (spec 4.8): monitor(callId) takes the service's monitor leg as the
 * attempt's call (its INVITE answered only when it names the leg, listen-only at the link: sip-session.ts), and
 * startRecording()/stopRecording() show `status().recording` only as the service answered.
 */

describe('monitor(callId)', () => {
  it('asks for a leg, answers only the INVITE naming it, shows the leg as the call to its end, and hangup() leaves it', async () => {
    const { voice, backend, sip, clock } = await connected();
    const leg = await voice.monitor('bc_agent');
    expect(leg).toMatchObject({ state: 'waiting_agent', kind: 'monitor', monitoredCallId: 'bc_agent', busy: true });
    expect(voice.status()).toMatchObject({ busy: true, attempt: { monitor: 'bc_agent', phase: 'admitted' }, call: { id: leg.id }, offer: null });
    const other = sip.invite('c_other');
    const own = sip.invite(leg.id);
    await clock.flush();
    expect([other.outcome, own.outcome]).toEqual(['rejected', 'accepted']);
    backend.setQueueCall(leg.id, { state: 'established' });
    await clock.advance(1000);
    expect(voice.status().call).toMatchObject({ id: leg.id, state: 'connected', serviceState: 'established' });
    await voice.hangup();
    expect(backend.requestsOf('hangupQueueCall').map((request) => request.id)).toEqual([leg.id]);
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, call: { state: 'ended' } });
  });

  it('holds the leg INVITE that comes before the answer naming the leg, and answers it then', async () => {
    const { voice, backend, sip, clock } = await connected();
    const gate = backend.hold('monitorCall');
    const monitoring = voice.monitor('bc_agent');
    await clock.flush();
    const legId = [...backend.queueCalls.keys()].at(-1)!;
    const invite = sip.invite(legId);
    await clock.flush();
    expect(invite.outcome).toBe('pending');
    gate.release();
    await monitoring;
    expect(invite.outcome).toBe('accepted');
  });

  it('ends with the call listened to: a read showing the leg finished ends it', async () => {
    const { voice, backend, sip, clock } = await connected();
    const leg = await voice.monitor('bc_agent');
    sip.invite(leg.id);
    backend.setQueueCall(leg.id, { state: 'established' });
    await clock.advance(1000);
    backend.setQueueCall(leg.id, { state: 'finished', endReason: 'call_ended' });
    sip.events.onSessionEnded(leg.id);
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: false, call: { state: 'ended', endReason: 'call_ended' } });
  });

  it('sends no digit on a leg: canSendDtmf is false and sendDtmf() is refused', async () => {
    const { voice, backend, sip, clock } = await connected();
    const leg = await voice.monitor('bc_agent');
    sip.invite(leg.id);
    sip.events.onAudio('playing');
    backend.setQueueCall(leg.id, { state: 'established' });
    await clock.advance(1000);
    expect(voice.status().audio).not.toBe('none');
    expect((await rejection(voice.sendDtmf('1'))).code).toBe('no_active_call');
    expect(sip.link.digits).toEqual([]);
  });

  it('is refused while busy, with bad input, and without a backend that monitors', async () => {
    const world = await inCall();
    expect((await rejection(world.voice.monitor('bc_agent'))).code).toBe('browser_agent_busy');
    expect((await rejection(world.voice.monitor(''))).code).toBe('invalid_argument');
    expect(world.backend.requestsOf('monitorCall')).toHaveLength(0);
  });

  it('passes the service refusal on and leaves nothing busy', async () => {
    const { voice, backend } = await connected();
    backend.fail('monitorCall', httpError(409, 'call_not_answered'));
    expect((await rejection(voice.monitor('bc_agent'))).code).toBe('call_not_answered');
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, error: { code: 'call_not_answered' } });
  });

  it('after a lost answer, finds the leg by reads of the user calls and takes its INVITE; none found, the attempt ends', async () => {
    const found = await connected();
    found.backend.drop('monitorCall', networkError());
    expect((await rejection(found.voice.monitor('bc_agent'))).code).toBe('monitor_outcome_unknown');
    expect(found.voice.status()).toMatchObject({ busy: true, attempt: { phase: 'outcome_unknown', monitor: 'bc_agent' } });
    await found.clock.advance(1000);
    const legId = found.voice.status().call?.id;
    expect(legId).toMatch(/^caller-/);
    const invite = found.sip.invite(legId);
    await found.clock.flush();
    expect(invite.outcome).toBe('accepted');

    const lost = await connected();
    lost.backend.fail('monitorCall', networkError());
    await rejection(lost.voice.monitor('bc_agent'));
    await lost.clock.advance(30_000);
    expect(lost.voice.status()).toMatchObject({ busy: false, attempt: null, error: { code: 'monitor_outcome_unknown' } });
  });
});

describe('startRecording() / stopRecording()', () => {
  it('shows recording only once the service answered a start, and not after it answered the stop', async () => {
    const { voice, backend } = await talking();
    const gate = backend.hold('startRecording');
    const starting = voice.startRecording();
    expect(voice.status().recording).toBe(false);
    gate.release();
    await starting;
    expect(voice.status().recording).toBe(true);
    expect(backend.requestsOf('startRecording').map((request) => request.id)).toEqual(['call-1']);
    await voice.stopRecording();
    expect(voice.status().recording).toBe(false);
    expect(backend.recordings.get('rec-1')).toMatchObject({ callId: 'call-1', state: 'completed' });
  });

  it('shows recording false once the call ends, and an answer that comes after the end changes nothing', async () => {
    const { voice, backend, clock } = await talking();
    await voice.startRecording();
    backend.setCall('call-1', { state: 'ended' });
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: false, recording: false });

    const late = await talking();
    const gate = late.backend.hold('startRecording');
    const starting = late.voice.startRecording();
    late.backend.setCall('call-1', { state: 'ended' });
    await late.clock.advance(1000);
    gate.release();
    await starting;
    expect(late.voice.status()).toMatchObject({ busy: false, recording: false });
  });

  it('keeps what the service last said when a request fails, and says why', async () => {
    const { voice, backend } = await talking();
    backend.fail('startRecording', httpError(403, 'recording_not_enabled'));
    expect((await rejection(voice.startRecording())).code).toBe('recording_not_enabled');
    expect(voice.status()).toMatchObject({ recording: false, error: { code: 'recording_not_enabled' } });
    await voice.startRecording();
    backend.fail('stopRecording', networkError());
    expect((await rejection(voice.stopRecording())).code).toBe('recording_outcome_unknown');
    expect(voice.status().recording).toBe(true);
  });

  it('is refused without a call of this page, on a monitor leg, and a stop with no recording started here', async () => {
    const idle = await connected();
    expect((await rejection(idle.voice.startRecording())).code).toBe('no_active_call');
    const leg = await idle.voice.monitor('bc_agent');
    expect(leg.kind).toBe('monitor');
    expect((await rejection(idle.voice.startRecording())).code).toBe('no_active_call');
    const talk = await talking();
    expect((await rejection(talk.voice.stopRecording())).code).toBe('invalid_argument');
    expect(talk.backend.requestsOf('startRecording')).toHaveLength(0);
  });
});
