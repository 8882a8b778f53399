// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestVoiceBrowser, FakeBackend, FakeTabs, flushMicrotasks } from '../../../../lib/testing/index.js';
import { CALL, connected, setup, START } from '../../../support/helper-world.js';
import { rejection } from '../../../support/rejection.js';

/**
 * Offered callers in the page (spec 4.8, 6.1): the service's INVITE with `X-Call-Id`
 * reaching an idle agent rings as `status().offer` until accept() answers it (once a read shows the call
 * bridging to this agent), decline() refuses it, the service withdraws it, or it rings out (declined, and the
 * agent said away). setAvailability() shows only what the server answered.
 */

afterEach(() => vi.unstubAllGlobals());

/** A connected agent offered a caller of `q-support`: the service's INVITE is in, the read of its queue too. */
async function offered(options: Parameters<typeof connected>[0] = {}) {
  const world = await connected(options);
  const caller = world.backend.offer('q-support', '+12025550121');
  const invite = world.sip.invite(caller.id, '+12025550121');
  await world.clock.flush();
  return { ...world, caller, invite };
}

describe('an offered caller rings', () => {
  it('shows the offer with its caller, its queue once read, and when it began, and answers nothing yet', async () => {
    const { voice, invite, caller, backend } = await offered();
    expect(invite.outcome).toBe('pending');
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, call: null, offer: { callId: caller.id, caller: '+12025550121', queueId: 'q-support', since: START } });
    expect(backend.requestsOf('getQueueCall').map((request) => request.id)).toEqual([caller.id]);
  });

  it('accept() reads the call, then answers its INVITE and shows the call to its end', async () => {
    const { voice, invite, caller, backend, clock } = await offered();
    const call = await voice.accept();
    expect(call).toMatchObject({ id: caller.id, state: 'waiting_agent', queueId: 'q-support' });
    expect(invite.outcome).toBe('accepted');
    expect(voice.status()).toMatchObject({ offer: null, busy: true, attempt: { phase: 'admitted' }, call: { id: caller.id } });
    backend.setQueueCall(caller.id, { state: 'established' });
    await clock.advance(1000);
    expect(voice.status().call).toMatchObject({ state: 'connected', serviceState: 'established' });
    await voice.hangup();
    expect(voice.status()).toMatchObject({ busy: false, offer: null, call: { state: 'ended' } });
  });

  it('accept() of an offer the service no longer bridges here refuses its INVITE and shows the call over', async () => {
    const { voice, invite, caller, backend } = await offered();
    backend.setQueueCall(caller.id, { state: 'queued', agentId: null });
    await expect(voice.accept()).resolves.toMatchObject({ busy: false });
    expect(invite.outcome).toBe('rejected');
    expect(voice.status()).toMatchObject({ busy: false, offer: null, attempt: null });
  });

  it('decline() refuses the INVITE and leaves the agent idle; then accept() and decline() have nothing to take', async () => {
    const { voice, invite } = await offered();
    await voice.decline();
    expect(invite.outcome).toBe('rejected');
    expect(voice.status()).toMatchObject({ offer: null, busy: false, attempt: null, error: null });
    expect((await rejection(voice.accept())).code).toBe('no_active_call');
    expect((await rejection(voice.decline())).code).toBe('no_active_call');
  });

  it('stops ringing, declining nothing, when the service withdraws the offer (CANCEL)', async () => {
    const { voice, invite, sip, backend, clock } = await offered();
    sip.withdraw(invite);
    await clock.advance(20_000);
    expect(voice.status().offer).toBeNull();
    expect(invite.outcome).toBe('pending');
    expect(backend.requestsOf('setAvailability')).toHaveLength(0);
  });

  it('declines an offer left ringing for ringMs and says the agent away, as the server answered', async () => {
    const world = setup();
    await world.voice.connect();
    await world.voice.setAvailability('available');
    const caller = world.backend.offer('q-support');
    const invite = world.sip.invite(caller.id, '+12025550123');
    await world.clock.advance(14_999);
    expect(invite.outcome).toBe('pending');
    await world.clock.advance(1);
    expect(invite.outcome).toBe('rejected');
    expect(world.backend.requestsOf('setAvailability').map((request) => request.id)).toEqual(['available', 'away']);
    expect(world.voice.status()).toMatchObject({ offer: null, availability: 'away' });
  });

  it('refuses a second offer while one rings, and any offer while a call is up', async () => {
    const { sip, backend, voice } = await offered();
    const second = sip.invite(backend.offer('q-support').id, '+12025550122');
    expect(second.outcome).toBe('rejected');
    await voice.accept();
    expect(sip.invite(backend.offer('q-support').id, '+12025550124').outcome).toBe('rejected');
  });

  it('declines the ringing offer when the agent starts a call of their own', async () => {
    const { voice, invite } = await offered();
    await voice.startCall(CALL, { idempotencyKey: 'key-1' });
    expect(invite.outcome).toBe('rejected');
    expect(voice.status()).toMatchObject({ offer: null, attempt: { idempotencyKey: 'key-1' } });
  });

  it('refuses an INVITE of a browser call (no caller) when no attempt awaits it, as before offers', async () => {
    const { sip, voice } = await connected();
    expect(sip.invite('call-9').outcome).toBe('rejected');
    expect(voice.status().offer).toBeNull();
  });
});

describe('the ring', () => {
  it('plays a tone of its own on the chosen speaker while the offer rings, and stops it when answered', async () => {
    const contexts: { closed: boolean; started: number; toElement: boolean }[] = [];
    const elements: { sinkId?: string; playing: boolean }[] = [];
    vi.stubGlobal(
      'AudioContext',
      class {
        readonly record = { closed: false, started: 0, toElement: false };
        currentTime = 0;
        destination = {};
        constructor() {
          contexts.push(this.record);
        }
        resume = () => Promise.resolve();
        createGain = () => ({ gain: { value: 1, setValueAtTime: () => undefined }, connect: (to: unknown) => void (this.record.toElement = to !== this.destination) });
        createMediaStreamDestination = () => ({ stream: {} });
        createOscillator = () => ({ frequency: { value: 0 }, connect: () => undefined, start: () => void this.record.started++ });
        close = () => {
          this.record.closed = true;
          return Promise.resolve();
        };
      },
    );
    vi.stubGlobal(
      'Audio',
      class {
        readonly record: { sinkId?: string; playing: boolean } = { playing: false };
        srcObject: unknown = null;
        constructor() {
          elements.push(this.record);
        }
        setSinkId(sinkId: string) {
          this.record.sinkId = sinkId;
          return Promise.resolve();
        }
        play() {
          this.record.playing = true;
          return Promise.resolve();
        }
        pause() {
          this.record.playing = false;
        }
      },
    );
    const world = createTestVoiceBrowser({ audioDevices: { speakerId: 'headset' } });
    await world.voice.connect();
    world.sip.invite(world.backend.offer('q-support').id, '+12025550121');
    expect(contexts).toEqual([{ closed: false, started: 2, toElement: true }]);
    expect(elements).toEqual([{ sinkId: 'headset', playing: true }]);
    await world.voice.accept();
    expect(contexts[0]?.closed).toBe(true);
    expect(elements[0]?.playing).toBe(false);
  });

  it('raises a desktop notification on a hidden page that allows them, with `offers.notify`', async () => {
    const shown: { title: string; body?: string; closed: boolean }[] = [];
    vi.stubGlobal(
      'Notification',
      Object.assign(
        class {
          readonly record: { title: string; body?: string; closed: boolean };
          onclick: (() => void) | null = null;
          constructor(title: string, options: NotificationOptions) {
            this.record = { title, body: options.body, closed: false };
            shown.push(this.record);
          }
          close() {
            this.record.closed = true;
          }
        },
        { permission: 'granted' },
      ),
    );
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    const world = createTestVoiceBrowser({ offers: { notify: true } });
    await world.voice.connect();
    const invite = world.sip.invite(world.backend.offer('q-support').id, '+12025550121');
    expect(shown).toEqual([{ title: 'Caller waiting', body: '+12025550121', closed: false }]);
    world.sip.withdraw(invite);
    expect(shown[0]?.closed).toBe(true);
  });
});

describe('availability', () => {
  it('shows what the server holds once connected, and what it answered to setAvailability()', async () => {
    const world = setup();
    world.backend.availability = 'available';
    expect(world.voice.status().availability).toBeNull();
    await world.voice.connect();
    await world.clock.flush();
    expect(world.voice.status().availability).toBe('available');
    await world.voice.setAvailability('away');
    expect(world.voice.status().availability).toBe('away');
  });

  it('refuses a word other than available or away, sending nothing, and keeps the status on a failed request', async () => {
    const { voice, backend } = await connected();
    expect((await rejection(voice.setAvailability('busy' as 'away'))).code).toBe('invalid_argument');
    backend.fail('setAvailability', new Error('offline'));
    expect((await rejection(voice.setAvailability('available'))).code).toBe('network_error');
    expect(backend.availability).toBe('away');
    expect(voice.status().availability).toBe('away');
  });
});

describe('in shared tabs', () => {
  it('shows the offer in every tab, and a follower accepts it in the leader', async () => {
    const tabs = new FakeTabs();
    const backend = new FakeBackend();
    const leader = createTestVoiceBrowser({ backend, tab: tabs.open() });
    const follower = createTestVoiceBrowser({ backend, tab: tabs.open() });
    await flushMicrotasks();
    await follower.voice.connect();
    await flushMicrotasks();
    const caller = backend.offer('q-support');
    const invite = leader.sip.invite(caller.id, '+12025550121');
    await flushMicrotasks();
    expect(follower.voice.status().offer).toMatchObject({ callId: caller.id, queueId: 'q-support' });
    await follower.voice.accept();
    expect(invite.outcome).toBe('accepted');
    await flushMicrotasks();
    expect(follower.voice.status()).toMatchObject({ offer: null, call: { id: caller.id } });
  });
});
