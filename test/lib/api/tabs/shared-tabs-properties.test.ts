// @vitest-environment happy-dom
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeBackend, networkError } from '../../../../lib/testing/fake-backend.js';
import { flushMicrotasks } from '../../../../lib/testing/fake-clock.js';
import { FakeTabs, type FakeTab } from '../../../../lib/testing/fake-tabs.js';
import { createTestVoiceBrowser, type TestVoiceBrowser } from '../../../../lib/testing/index.js';
import type { VoiceBrowserStatus } from '../../../../lib/core/types.js';
import { CALL, START } from '../../../support/helper-world.js';

/**
 * Property test: random tab opens, closes and crashes, method calls from any tab, faults and the
 * service's moves, in one browser's tabs on one fake service. Once the tabs' messages settle: at most one tab
 * holds a registration (and so a microphone), one intent never makes two calls, exactly one open tab leads, and
 * every tab shows the leader's status. `PROPERTY_RUNS` sets how many sequences run (default 300).
 */

type Method = 'connect' | 'disconnect' | 'start' | 'hangup' | 'dtmf' | 'mute' | 'recover';

type Action =
  | { kind: 'open' }
  | { kind: 'close'; tab: number; crash: boolean }
  | { kind: 'call'; tab: number; method: Method; key: number }
  | { kind: 'fault'; op: 'createCall' | 'createSession' | 'hangupCall' }
  | { kind: 'service'; state: 'connected' | 'ended' }
  | { kind: 'invite' }
  | { kind: 'advance'; ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'open' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), tab: fc.nat(3), crash: fc.boolean() }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      tab: fc.nat(3),
      method: fc.constantFrom<Method>('connect', 'connect', 'disconnect', 'start', 'start', 'start', 'hangup', 'dtmf', 'mute', 'recover'),
      key: fc.nat(2),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fault' as const), op: fc.constantFrom('createCall' as const, 'createSession' as const, 'hangupCall' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('service' as const), state: fc.constantFrom('connected' as const, 'ended' as const) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'invite' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(0, 500, 1000, 3000, 16_000) }) },
);

interface Tab extends TestVoiceBrowser {
  tab: FakeTab;
}

const withoutTabs = ({ tabs: _, ...rest }: VoiceBrowserStatus) => rest;

async function play(actions: Action[]): Promise<void> {
  const tabs = new FakeTabs();
  const backend = new FakeBackend();
  const all: Tab[] = [];
  const open = () => all.filter((tab) => !tab.tab.closed);
  const keysUsed = new Set<string>();
  const settle = async () => {
    for (let i = 0; i < 3; i++) await flushMicrotasks();
  };
  const openTab = () => {
    const tab = tabs.open();
    all.push({ ...createTestVoiceBrowser({ backend, startAt: START, tab, remoteAudio: document.createElement('audio') }), tab });
  };
  openTab();

  for (const step of actions) {
    const live = open();
    const leader = live.find((tab) => tab.voice.status().tabs.leader);
    switch (step.kind) {
      case 'open':
        if (live.length < 4) openTab();
        break;
      case 'close': {
        const target = live[step.tab % Math.max(live.length, 1)];
        if (target && live.length > 1) {
          if (step.crash) target.tab.crash();
          else target.tab.close();
        }
        break;
      }
      case 'call': {
        const tab = live[step.tab % live.length];
        if (!tab) break;
        const key = `key-${step.key}`;
        const run = {
          connect: () => tab.voice.connect(),
          disconnect: () => tab.voice.disconnect(),
          start: () => {
            keysUsed.add(key);
            return tab.voice.startCall(CALL, { idempotencyKey: key });
          },
          hangup: () => tab.voice.hangup(),
          dtmf: () => tab.voice.sendDtmf('5'),
          mute: () => Promise.resolve(tab.voice.mute(step.key === 0)),
          recover: () => tab.voice.recover(),
        }[step.method];
        // Refusals are the helper's to give; the invariants below are what must hold whatever it answered.
        void run().catch(() => undefined);
        break;
      }
      case 'fault':
        backend.fail(step.op, networkError());
        break;
      case 'service': {
        const call = [...backend.calls.values()].find((found) => found.busy);
        if (call) backend.setCall(call.id, step.state === 'ended' ? { state: 'ended', endReason: 'hangup' } : { state: 'connected' });
        break;
      }
      case 'invite': {
        const call = [...backend.calls.values()].find((found) => found.busy);
        if (call && leader?.sip.links.some((link) => !link.closed)) leader.sip.invite(call.id);
        break;
      }
      case 'advance':
        for (const tab of open()) await tab.clock.advance(step.ms);
        break;
    }
    await settle();
    check(open(), backend, keysUsed);
  }
}

function check(live: Tab[], backend: FakeBackend, keysUsed: Set<string>): void {
  // One registration, and so one microphone, in the browser: only the leader's link is open.
  const registered = live.filter((tab) => tab.sip.links.some((link) => !link.closed));
  expect(registered.length).toBeLessThanOrEqual(1);
  // One intent, one call: every call the service made came from a key a tab used, and no key made two.
  expect(backend.calls.size).toBeLessThanOrEqual(keysUsed.size);
  // Exactly one open tab leads, and every tab shows its status.
  const leaders = live.filter((tab) => tab.voice.status().tabs.leader);
  expect(leaders).toHaveLength(1);
  const shown = withoutTabs((leaders[0] as Tab).voice.status());
  for (const tab of live) expect(withoutTabs(tab.voice.status())).toEqual(shown);
  if (registered[0]) expect(registered[0]).toBe(leaders[0]);
}

describe('shared tabs, under random tabs, calls and faults', () => {
  it('keep one registration, one call per intent, one leader, and every tab showing its status', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 25 }), async (actions) => play(actions)),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  }, 120_000);
});
