// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { VoiceBrowserError } from '../../../../lib/core/errors.js';
import { FakeBackend, httpError } from '../../../../lib/testing/fake-backend.js';
import { flushMicrotasks } from '../../../../lib/testing/fake-clock.js';
import { FakeTabs, type FakeTab } from '../../../../lib/testing/fake-tabs.js';
import { createTestVoiceBrowser, type TestVoiceBrowser } from '../../../../lib/testing/index.js';
import type { VoiceBrowserOptions } from '../../../../lib/core/helper-types.js';
import type { VoiceBrowserStatus } from '../../../../lib/core/types.js';
import { CALL, START } from '../../../support/helper-world.js';
import { rejection } from '../../../support/rejection.js';

/** Many tabs, one phone (DESIGN.md): the tabs of one browser on one fake service, each with its own fake SIP peer and clock. */

interface Tab extends TestVoiceBrowser {
  tab: FakeTab;
  statuses: VoiceBrowserStatus[];
}

function browser() {
  const tabs = new FakeTabs();
  const backend = new FakeBackend();
  const open: Tab[] = [];
  const openTab = (options: Pick<VoiceBrowserOptions, 'tabs' | 'closeProtection'> = {}): Tab => {
    const tab = tabs.open();
    const statuses: VoiceBrowserStatus[] = [];
    const world = createTestVoiceBrowser({ backend, startAt: START, tab, remoteAudio: document.createElement('audio'), onStatus: (status) => statuses.push(status), ...options });
    const opened = { ...world, tab, statuses };
    open.push(opened);
    return opened;
  };
  /** Time moves in every open tab; a closed tab's timers died with it. */
  const advance = async (ms: number) => {
    for (const { tab, clock } of open) if (!tab.closed) await clock.advance(ms);
  };
  return { tabs, backend, openTab, advance, settle: flushMicrotasks };
}

/** Three tabs, the first leading, connected from the second. */
async function threeTabsReady() {
  const world = browser();
  const [one, two, three] = [world.openTab(), world.openTab(), world.openTab()];
  await world.settle();
  await two.voice.connect();
  await world.settle();
  return { ...world, world, one, two, three };
}

/** The service rings the leader's page with `id`, the audio plays and the recipient answers. */
async function answered(world: ReturnType<typeof browser>, leader: Tab, id: string) {
  leader.sip.invite(id);
  leader.sip.link.options.events.onMediaConnected(id);
  leader.sip.link.options.events.onAudio('playing');
  world.backend.setCall(id, { state: 'connected' });
  await world.advance(1000);
}

const withoutTabs = (status: VoiceBrowserStatus) => ({ ...status, tabs: undefined });

describe('shared tabs', () => {
  it('elect one leader, which alone creates the session and registers; every tab shows its status', async () => {
    const { backend, one, two, three } = await threeTabsReady();

    expect(backend.requestsOf('createSession')).toHaveLength(1);
    expect([one.sip.links.length, two.sip.links.length, three.sip.links.length]).toEqual([1, 0, 0]);
    expect(one.voice.status().tabs).toEqual({ mode: 'shared', leader: true });
    expect(two.voice.status().tabs).toEqual({ mode: 'shared', leader: false });
    for (const follower of [two, three]) expect(withoutTabs(follower.voice.status())).toEqual(withoutTabs(one.voice.status()));
    expect(three.voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-1' } });
    expect(Object.isFrozen(three.voice.status().session)).toBe(true);
    expect(three.statuses.at(-1)).toBe(three.voice.status());
  });

  it('dial one call for one intent from any tabs; the leader answers it and a third tab hangs it up', async () => {
    const { world, backend, one, two, three, advance } = await threeTabsReady();
    const [fromTwo, fromThree] = await Promise.all([
      two.voice.startCall(CALL, { idempotencyKey: 'key-1' }),
      three.voice.startCall(CALL, { idempotencyKey: 'key-1' }),
    ]);
    expect(fromThree.id).toBe(fromTwo.id);
    expect(backend.requestsOf('createCall')).toHaveLength(1);

    await answered(world, one, fromTwo.id);
    expect(three.voice.status()).toMatchObject({ busy: true, audio: 'playing', call: { state: 'connected' } });

    await three.voice.hangup();
    expect(backend.requestsOf('hangupCall')).toHaveLength(1);
    backend.setCall(fromTwo.id, { state: 'ended', endReason: 'hangup' });
    await advance(1000);
    expect(two.voice.status()).toMatchObject({ busy: false, call: { state: 'ended' } });
  });

  it('make one call when two tabs ask for two at once: the other is refused there with its code', async () => {
    const { backend, two, three } = await threeTabsReady();
    const outcomes = await Promise.allSettled([
      two.voice.startCall(CALL, { idempotencyKey: 'key-2' }),
      three.voice.startCall(CALL, { idempotencyKey: 'key-3' }),
    ]);
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(refused?.status === 'rejected' && refused.reason).toBeInstanceOf(VoiceBrowserError);
    expect(refused?.status === 'rejected' && (refused.reason as VoiceBrowserError).code).toBe('browser_agent_busy');
  });

  it('send a follower\'s DTMF and mute through the leader\'s link', async () => {
    const { world, one, two, settle } = await threeTabsReady();
    const call = await two.voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await answered(world, one, call.id);

    await two.voice.sendDtmf('5');
    two.voice.mute(true);
    await settle();
    expect(one.sip.link.digits).toEqual(['5']);
    expect(one.sip.link.muted).toBe(true);
    expect(two.voice.status().muted).toBe(true);
    expect(() => two.voice.mute('yes' as unknown as boolean)).toThrow(VoiceBrowserError);
    expect((await rejection(two.voice.sendDtmf('x'))).code).toBe('invalid_argument');
  });

  it('reject a follower\'s failed call with the leader\'s coded error, shown in every tab', async () => {
    const world = browser();
    const [one, two] = [world.openTab(), world.openTab()];
    await world.settle();
    world.backend.fail('createSession', httpError(403, 'voice_not_entitled'));

    const error = await rejection(two.voice.connect());
    await world.settle();
    expect(error).toBeInstanceOf(VoiceBrowserError);
    expect(error).toMatchObject({ code: 'voice_not_entitled', status: 403 });
    expect(two.voice.status().error?.code).toBe('voice_not_entitled');
    expect(one.voice.status().error?.code).toBe('voice_not_entitled');
  });

  it('run calls made before any leader is known once one is', async () => {
    const world = browser();
    const only = world.openTab();
    await only.voice.connect();
    expect(only.voice.status()).toMatchObject({ connection: 'ready', tabs: { mode: 'shared', leader: true } });
    expect(world.backend.requestsOf('createSession')).toHaveLength(1);
  });

  it('answer recover() in any tab with what the phone holds, once the leader has a session', async () => {
    const { two, three } = await threeTabsReady();
    const status = await three.voice.recover();
    expect(status).toMatchObject({ connection: 'ready', tabs: { leader: false } });
    expect(two.voice.status().error).toBeNull();
  });

  it('say in a follower that the audio resumes with a click in the leader\'s tab', async () => {
    const { two } = await threeTabsReady();
    const error = await rejection(two.voice.resumeAudio());
    expect(error.code).toBe('audio_playback_blocked');
    expect(two.voice.status().error).toMatchObject({ code: 'audio_playback_blocked', message: expect.stringContaining('tab holding the phone') });
  });
});

describe('when the leader goes', () => {
  it('mid-call, the next tab leads and shows the call in recovery_required; hangup works and nothing is dialled again', async () => {
    const { world, backend, one, two, three, advance, settle } = await threeTabsReady();
    const call = await two.voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await answered(world, one, call.id);

    one.tab.close();
    await settle();
    await advance(0);
    expect(two.voice.status()).toMatchObject({ connection: 'recovery_required', busy: true, call: { id: call.id }, tabs: { leader: true } });
    expect(three.voice.status()).toMatchObject({ connection: 'recovery_required', tabs: { leader: false } });
    expect(two.sip.links).toHaveLength(0);

    await three.voice.hangup();
    backend.setCall(call.id, { state: 'ended', endReason: 'hangup' });
    await advance(1000);
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    expect(two.voice.status()).toMatchObject({ busy: false, call: { state: 'ended' } });
    await three.voice.disconnect();
    expect([...backend.sessions.values()].filter((session) => !session.ended)).toHaveLength(0);
  });

  it('idle and ready, the next leader connects by itself (the crashed leader said nothing)', async () => {
    const { backend, one, two, three, settle, advance } = await threeTabsReady();
    one.tab.crash();
    await settle();
    await advance(0);
    expect(backend.requestsOf('createSession')).toHaveLength(2);
    expect(two.voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-2' }, tabs: { leader: true } });
    expect(three.voice.status()).toMatchObject({ connection: 'ready', session: { id: 'session-2' } });
    expect(two.sip.links).toHaveLength(1);
  });

  it('before answering a call, the call rejects call_outcome_unknown and is never sent again', async () => {
    const { backend, one, two, settle, advance } = await threeTabsReady();
    const gate = backend.hold('createCall');
    const starting = two.voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await settle();
    expect(backend.requestsOf('createCall')).toHaveLength(1);

    one.tab.crash();
    gate.release();
    expect((await rejection(starting)).code).toBe('call_outcome_unknown');
    await advance(0);
    expect(backend.requestsOf('createCall')).toHaveLength(1);
    expect(two.voice.status()).toMatchObject({ connection: 'recovery_required', tabs: { leader: true } });
  });
});

describe('destroy()', () => {
  it('in a follower, leaves the tabs and ends nothing; its later calls are refused', async () => {
    const { backend, one, three } = await threeTabsReady();
    await three.voice.destroy();
    expect(one.voice.status().connection).toBe('ready');
    expect(backend.requestsOf('endSession')).toHaveLength(0);
    expect((await rejection(three.voice.connect())).code).toBe('browser_session_unavailable');
  });

  it('in the leader, disconnects, then another tab holds the phone; a helper built after it in that tab follows', async () => {
    const { world, backend, one, two } = await threeTabsReady();
    await one.voice.destroy();
    expect(backend.requestsOf('endSession')).toHaveLength(1);
    const rebuilt = createTestVoiceBrowser({ backend, tab: one.tab });
    await world.settle();
    expect(two.voice.status()).toMatchObject({ connection: 'disconnected', tabs: { leader: true } });
    expect(rebuilt.voice.status().tabs).toEqual({ mode: 'shared', leader: false });
    await rebuilt.voice.connect();
    expect(two.voice.status().connection).toBe('ready');
    expect(two.sip.links).toHaveLength(1);
  });
});

describe('independent tabs', () => {
  it('stand alone when asked to, each with its own session (the second supersedes the first), and say so', async () => {
    const world = browser();
    const [one, two] = [world.openTab({ tabs: 'independent' }), world.openTab({ tabs: 'independent' })];
    await one.voice.connect();
    await two.voice.connect();
    expect(world.backend.requestsOf('createSession')).toHaveLength(2);
    expect([one.sip.links.length, two.sip.links.length]).toEqual([1, 1]);
    expect(two.voice.status().tabs).toEqual({ mode: 'independent', leader: true });
  });

  it('stand alone where the browser has no shared tabs', () => {
    const { voice } = createTestVoiceBrowser();
    expect(voice.status().tabs).toEqual({ mode: 'independent', leader: true });
  });
});

describe('closeProtection', () => {
  const leaving = (page: EventTarget) => {
    const event = new Event('beforeunload', { cancelable: true });
    page.dispatchEvent(event);
    return event.defaultPrevented;
  };

  it('asks before leaving the tab that holds a call\'s audio, and only while it does', async () => {
    const { world, one, two, advance } = await threeTabsReady();
    expect(leaving(one.tab.page)).toBe(false);
    const call = await two.voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await answered(world, one, call.id);
    expect(leaving(one.tab.page)).toBe(true);
    expect(leaving(two.tab.page)).toBe(false);

    await one.voice.hangup();
    world.backend.setCall(call.id, { state: 'ended', endReason: 'hangup' });
    await advance(1000);
    expect(leaving(one.tab.page)).toBe(false);
  });

  it('never asks when turned off', async () => {
    const world = browser();
    const only = world.openTab({ closeProtection: false });
    await only.voice.connect();
    const call = await only.voice.startCall(CALL, { idempotencyKey: 'key-1' });
    await answered(world, only, call.id);
    expect(only.voice.status().audio).toBe('playing');
    expect(leaving(only.tab.page)).toBe(false);
  });
});
