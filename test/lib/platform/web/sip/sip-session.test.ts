// @vitest-environment happy-dom
import type { IncomingInviteRequest } from 'sip.js/lib/core/messages/methods/invite.js';
import type { IncomingReferRequest } from 'sip.js/lib/core/messages/methods/refer.js';
import type { AudioSessionHandler } from '../../../../../lib/platform/web/media/audio-session-handler.js';
import { describe, expect, it } from 'vitest';
import type { LinkEvent } from '../../../../../lib/runtime/sip-link.js';
import { watchSession } from '../../../../../lib/platform/web/sip/call-watch.js';
import { createInvites, type Call } from '../../../../../lib/platform/web/sip/sip-session.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';
import { FakeCallPeerConnection, fakeSession, quietMedia } from '../../../../support/fake-call-media.js';
import { fakeWebAudio } from '../../../../support/fake-web-audio.js';

/**
 * A call's session as sip-session.ts follows it, over a fake call and peer connection whose statistics
 * are Chromium's or Firefox's: the warnings and quality samples it tells, and the microphone meter it opens and
 * closes with the call's media.
 */

function world(engine: 'chromium' | 'firefox') {
  const clock = new FakeClock(0);
  const audio = fakeWebAudio(clock);
  const told: string[] = [];
  const levels: Array<number | null> = [];
  /** What the session tells, one line each: its name as the link's events were once named, then its fields. */
  const named: Partial<Record<LinkEvent['type'], string>> = { warning: 'onWarning', session_ended: 'onSessionEnded' };
  const emit = (event: LinkEvent) => {
    if (event.type === 'quality') levels.push(event.quality.microphoneLevel);
    else told.push([named[event.type] ?? event.type, ...Object.values(event).slice(1)].join(' '));
  };
  /** One call: its session established, its media watched until the test ends it. */
  const call = (callId: string, state: RTCPeerConnectionState = 'connected') => {
    const pc = new FakeCallPeerConnection(engine, clock);
    pc.connectionState = state;
    const { session, enter } = fakeSession(pc);
    const media = quietMedia();
    watchSession(session, callId, { emit, media, clock, onTerminated: () => told.push(`terminated ${callId}`), audio: audio.open });
    enter('established');
    return { pc, media, session, end: () => enter('terminated') };
  };
  return { clock, audio, told, levels, call };
}

describe('a call in Firefox, whose statistics carry no microphone level', () => {
  it('tells the level measured from the sent track in each quality sample', async () => {
    const { clock, levels, call } = world('firefox');
    call('call-1');
    await clock.advance(6000);
    expect(levels).toEqual([0.05, 0.05, 0.05]);
  });

  it('raises silent_microphone from the meter after 3 s of silence while not muted, and clears it on sound', async () => {
    const { clock, audio, told, call } = world('firefox');
    call('call-1');
    await clock.advance(1000);
    const context = audio.made[0];
    if (!context) throw new Error('no meter opened');
    context.level = 0.0002;
    await clock.advance(2500);
    expect(told.filter((line) => line.startsWith('onWarning'))).toEqual([]);
    await clock.advance(1000);
    expect(told.filter((line) => line.startsWith('onWarning'))).toEqual(['onWarning call-1 silent_microphone true']);
    context.level = 0.05;
    await clock.advance(1000);
    expect(told.filter((line) => line.startsWith('onWarning'))).toEqual(['onWarning call-1 silent_microphone true', 'onWarning call-1 silent_microphone false']);
  });

  it('never raises it while muted', async () => {
    const { clock, audio, told, call } = world('firefox');
    const { media } = call('call-1');
    media.muted = true;
    await clock.advance(500);
    const context = audio.made[0];
    if (context) context.level = 0;
    await clock.advance(10_000);
    expect(told.filter((line) => line.startsWith('onWarning'))).toEqual([]);
  });

  it("closes the call's AudioContext at its end, and each call has its own: none is left across calls", async () => {
    const { clock, audio, told, call } = world('firefox');
    const first = call('call-1');
    await clock.advance(3000);
    first.end();
    expect(audio.made.map((context) => context.state)).toEqual(['closed']);
    const second = call('call-2');
    await clock.advance(3000);
    second.end();
    expect(audio.made.map((context) => context.state)).toEqual(['closed', 'closed']);
    expect(audio.made.flatMap((context) => context.sources).every((source) => !source.connected)).toBe(true);
    expect(told).toContain('onSessionEnded call-2');
    // Nothing runs after the end: no timer left, no context opened again.
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(5000);
    expect(audio.made).toHaveLength(2);
  });
});

describe('a call in Chromium, whose statistics carry the microphone level', () => {
  it('takes the level and the silent-microphone warning from the statistics, and makes no AudioContext', async () => {
    const { clock, audio, told, levels, call } = world('chromium');
    const { pc } = call('call-1');
    await clock.advance(4000);
    expect(levels).toEqual([0.05, 0.05]);
    pc.level = 0;
    await clock.advance(4000);
    expect(told.filter((line) => line.startsWith('onWarning'))).toEqual(['onWarning call-1 silent_microphone true']);
    expect(audio.made).toEqual([]);
  });
});

describe('a call whose media path does not connect (ICE checks unanswered)', () => {
  it('tells no_audio_path after 3 s and no media_connected, never no_inbound_audio; both change once ICE connects', async () => {
    const { clock, told, call } = world('chromium');
    const { pc } = call('call-1', 'connecting');
    await clock.advance(2500);
    expect(told).toEqual([]);
    await clock.advance(1000);
    expect(told).toEqual(['onWarning call-1 no_audio_path true']);
    await clock.advance(20_000);
    expect(told).toEqual(['onWarning call-1 no_audio_path true']);

    pc.connectionState = 'connected';
    pc.dispatchEvent(new Event('connectionstatechange'));
    await clock.advance(500);
    expect(told).toEqual(['onWarning call-1 no_audio_path true', 'onWarning call-1 no_audio_path false', 'media_connected call-1']);
  });
});

describe('a REFER in the call', () => {
  it('is declined with 603 and never followed: the helper dials nobody itself', async () => {
    const { call } = world('chromium');
    const { session } = call('call-1');
    const answers: unknown[] = [];
    const referral = {
      accept: () => {
        throw new Error('a REFER was accepted');
      },
      reject: (options: unknown) => void answers.push(options),
    } as unknown as IncomingReferRequest;
    session.delegate?.onRefer?.(referral);
    await Promise.resolve();
    expect(answers).toEqual([{ statusCode: 603 }]);
  });
});

describe('the INVITEs the link keeps by id (createInvites)', () => {
  /** An INVITE as the core hands it to createInvites: its headers, its From, and the answers it was given. */
  function invitation(headers: Record<string, string>, fromUser = '12025550121') {
    const answered: string[] = [];
    const fake = {
      message: {
        getHeader: (name: string) => headers[name],
        hasHeader: (name: string) => name in headers,
        from: { uri: { user: fromUser } },
        body: 'v=0 (the offer)',
      },
      delegate: undefined as { onCancel?(): void } | undefined,
      trying: () => undefined,
      progress: () => undefined,
      accept: (): unknown => undefined,
      reject: (options: { statusCode: number }) => void answered.push(`reject ${options.statusCode}`),
    };
    fake.accept = () => {
      answered.push('accept');
      return { session: { delegate: undefined } } as never;
    };
    return { fake: fake as unknown as IncomingInviteRequest, answered, cancel: () => fake.delegate?.onCancel?.() };
  }
  /** A call's media that answers any offer at once. */
  const handler = () => ({ setDescription: () => Promise.resolve(), getDescription: () => Promise.resolve('v=0 (the answer)'), close: () => undefined }) as unknown as AudioSessionHandler;
  const setup = () => {
    const events: LinkEvent[] = [];
    const accepted: Call[] = [];
    const invites = createInvites({ emit: (event) => events.push(event), microphone: undefined, clock: new FakeClock(5), onAccept: (one) => accepted.push(one), makeHandler: handler });
    return { events, accepted, invites };
  };

  it("tells a queue caller's INVITE with the caller's number, a browser call's and a monitor leg's without one", () => {
    const { events, invites } = setup();
    invites.received(invitation({ 'X-Call-Id': 'c_1' }).fake);
    invites.received(invitation({ 'X-Browser-Call-Id': 'bc_1' }).fake);
    invites.received(invitation({ 'X-Call-Id': 'c_leg', 'X-Monitored-Call-Id': 'bc_9' }).fake);
    expect(events).toEqual([
      { type: 'invite_received', invite: { id: 1, callId: 'c_1', at: 5, caller: '+12025550121' } },
      { type: 'invite_received', invite: { id: 2, callId: 'bc_1', at: 5 } },
      { type: 'invite_received', invite: { id: 3, callId: 'c_leg', at: 5 } },
    ]);
  });

  it("answers a monitor leg's INVITE listen-only: no microphone asked for, and a call's with it", async () => {
    const asked: unknown[] = [];
    const recording = () =>
      ({
        setDescription: () => Promise.resolve(),
        getDescription: (options: { constraints?: { audio?: unknown } }) => {
          asked.push(options.constraints?.audio);
          return Promise.resolve('v=0');
        },
        close: () => undefined,
      }) as unknown as AudioSessionHandler;
    const invites = createInvites({ emit: () => undefined, microphone: 'mic-2', clock: new FakeClock(5), onAccept: () => undefined, makeHandler: recording });
    invites.received(invitation({ 'X-Call-Id': 'c_leg', 'X-Monitored-Call-Id': 'bc_9' }).fake);
    invites.received(invitation({ 'X-Call-Id': 'c_1' }).fake);
    await invites.answer(1);
    await invites.answer(2);
    expect(asked).toEqual([false, { deviceId: { exact: 'mic-2' } }]);
  });

  it('refuses every INVITE still ringing when the link closes (480), and leaves one answered or declined as it is', async () => {
    const { invites } = setup();
    const [one, two, three] = [invitation({ 'X-Call-Id': 'c_1' }), invitation({ 'X-Call-Id': 'c_2' }), invitation({ 'X-Call-Id': 'c_3' })];
    for (const each of [one, two, three]) invites.received(each.fake);
    await invites.answer(1);
    invites.decline(2);
    invites.close();
    expect([one.answered, two.answered, three.answered]).toEqual([['accept'], ['reject 486'], ['reject 480']]);
  });

  it("answers the service's re-INVITE in the dialog with our Contact and Allow (RFC 3261 section 12.2.1.1)", async () => {
    const dialog = { delegate: undefined as { onInvite?(request: unknown): void } | undefined };
    const one = invitation({ 'X-Call-Id': 'c_1' });
    (one.fake as unknown as { accept: () => unknown }).accept = () => ({ session: dialog });
    const headers = ['Contact: <sip:page@x.invalid;transport=ws>', 'Allow: ACK, BYE'];
    const invites = createInvites({ emit: () => undefined, microphone: undefined, clock: new FakeClock(5), onAccept: () => undefined, makeHandler: handler, headers: () => headers });
    invites.received(one.fake);
    await invites.answer(1);
    const answers: unknown[] = [];
    dialog.delegate?.onInvite?.({ message: { body: 'v=0 (a new offer)', getHeader: () => undefined }, accept: (options: unknown) => answers.push(options), reject: (options: unknown) => answers.push(options) });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answers).toEqual([{ statusCode: 200, body: expect.objectContaining({ contentType: 'application/sdp', content: 'v=0 (the answer)' }), extraHeaders: headers }]);
  });

  it('answers and declines by id, once; a withdrawn INVITE is told, and is neither answered nor declined after', async () => {
    const { events, accepted, invites } = setup();
    const one = invitation({ 'X-Call-Id': 'c_1' });
    const two = invitation({ 'X-Call-Id': 'c_2' });
    const three = invitation({ 'X-Call-Id': 'c_3' });
    for (const each of [one, two, three]) invites.received(each.fake);
    await invites.answer(1);
    await invites.answer(1);
    invites.decline(2);
    invites.decline(2);
    three.cancel();
    await invites.answer(3);
    invites.decline(3);
    expect([one.answered, two.answered, three.answered]).toEqual([['accept'], ['reject 486'], ['reject 487']]);
    expect(accepted.map((call) => call.request)).toEqual([one.fake]);
    expect(events.at(-1)).toEqual({ type: 'invite_withdrawn', id: 3, callId: 'c_3' });
  });
});
