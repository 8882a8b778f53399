// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { VoiceBrowserError } from '../../../lib/core/errors.js';
import { canAnswerNext, canCall, canConnect, canRenew, canRetryCall, canSendDtmf, type VoiceBrowserStatus } from '../../../lib/index.js';
import { CALL, connected, inCall, setup, talking, type World } from '../../support/helper-world.js';

/**
 * The rules the library exports (lib/core/status-rules.ts) are the ones its helper applies: in each state, a method is
 * refused for the state exactly when its rule says no, so a page that offers a control by the rule never offers
 * one the helper refuses, nor hides one it takes.
 */

/** The codes a method is refused with for the state it finds (not for its arguments, nor by the service). */
const STATE_REFUSALS = new Set(['browser_agent_busy', 'browser_session_unavailable', 'cleanup_unknown', 'no_active_call']);

/** Whether `run` was refused for the state; any other outcome (it resolved, the service said no) means it went ahead. */
const refused = (run: () => Promise<unknown>): Promise<boolean> =>
  run().then(
    () => false,
    (error: unknown) => error instanceof VoiceBrowserError && STATE_REFUSALS.has(error.code),
  );

/** The states a page meets, each built afresh for every method tried in it. */
const STATES: Record<string, () => Promise<World>> = {
  fresh: async () => setup(),
  ready: () => connected(),
  'call admitted, no audio yet': () => inCall(),
  talking: () => talking(),
  'recipient ringing, the page answered': async () => {
    const world = await inCall();
    world.sip.invite('call-1');
    world.backend.setCall('call-1', { state: 'dialing_recipient' });
    await world.clock.advance(1000);
    return world;
  },
  'call ended': async () => {
    const world = await talking();
    world.backend.setCall('call-1', { state: 'ended' });
    await world.clock.advance(1000);
    return world;
  },
  'answer lost': async () => {
    const world = await connected();
    world.backend.drop('createCall');
    await world.voice.startCall(CALL, { idempotencyKey: 'key-1' }).catch(() => undefined);
    return world;
  },
  expired: async () => {
    const world = await connected();
    world.sip.events.onDisconnected(new VoiceBrowserError('browser_session_unavailable', 'the registration ended'));
    await world.clock.flush();
    return world;
  },
  'offline in a call': async () => {
    const world = await talking();
    world.sip.events.onDisconnected(new VoiceBrowserError('connection_failed', 'gave up'));
    await world.clock.flush();
    return world;
  },
  'recovery required': async () => {
    const before = await inCall();
    const world = setup({ backend: before.backend });
    await world.voice.recover();
    return world;
  },
};

/** Each method, the rule that says whether it goes ahead, and how a page calls it (a lost attempt is retried with its key). */
const METHODS: Record<string, { rule: (status: VoiceBrowserStatus) => boolean; run: (world: World) => Promise<unknown> }> = {
  'connect()': { rule: canConnect, run: ({ voice }) => voice.connect() },
  'renew()': { rule: canRenew, run: ({ voice }) => voice.renew() },
  'startCall()': {
    rule: canCall,
    run: ({ voice }) => {
      const status = voice.status();
      return voice.startCall(CALL, { idempotencyKey: canRetryCall(status) && status.attempt ? status.attempt.idempotencyKey : 'key-new' });
    },
  },
  'answerNext()': { rule: canAnswerNext, run: ({ voice }) => voice.answerNext('q_support') },
  'sendDtmf()': { rule: canSendDtmf, run: ({ voice }) => voice.sendDtmf('5') },
};

describe('the exported rules', () => {
  for (const [state, build] of Object.entries(STATES)) {
    for (const [method, { rule, run }] of Object.entries(METHODS)) {
      it(`${method} ${state}: refused exactly when its rule says no`, async () => {
        const world = await build();
        const status = world.voice.status();
        // connect() while ready resolves at once: nothing to refuse, nothing to do.
        const expected = method === 'connect()' && status.connection === 'ready' ? false : !rule(status);
        expect(await refused(() => run(world)), JSON.stringify({ connection: status.connection, busy: status.busy, call: status.call?.state, audio: status.audio })).toBe(expected);
      });
    }
  }

  it('meets each rule both ways in the states above', async () => {
    const seen = new Map(Object.keys(METHODS).map((method) => [method, new Set<boolean>()]));
    for (const build of Object.values(STATES)) {
      const status = (await build()).voice.status();
      for (const [method, { rule }] of Object.entries(METHODS)) seen.get(method)?.add(rule(status));
    }
    for (const [method, outcomes] of seen) expect([...outcomes].sort(), method).toEqual([false, true]);
  });
});
