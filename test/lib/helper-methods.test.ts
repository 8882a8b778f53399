// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { HELPER_METHODS, LEADER_METHODS, TAB_METHODS } from '../../lib/helper-methods.js';
import { redirect, takeover, unanswered, type Pending } from '../../lib/shared-tabs.js';
import { FakeTabs } from '../../lib/testing/fake-tabs.js';
import { createTestVoiceBrowser } from '../../lib/testing/index.js';
import { INITIAL_STATUS } from '../../lib/status-snapshot.js';
import type { VoiceBrowserStatus } from '../../lib/types.js';

/**
 * The one list of the helper's methods (lib/helper-methods.ts) against the helpers the library makes, and the
 * shared tabs' decisions (lib/shared-tabs.ts) taken alone.
 */

const sorted = (names: Iterable<string>) => [...names].sort();

describe('the helper methods list', () => {
  it('names every method of a helper of its own and of a tab among shared tabs, and nothing else', () => {
    const alone = createTestVoiceBrowser({ tabs: 'independent' }).voice;
    const tabs = new FakeTabs();
    const follower = createTestVoiceBrowser({ tab: tabs.open() }).voice;
    expect(sorted(HELPER_METHODS)).toEqual(sorted(Object.keys(alone)));
    expect(sorted(HELPER_METHODS)).toEqual(sorted(Object.keys(follower)));
  });

  it('names each method once, in one list: the leader runs it, or the tab that calls it', () => {
    expect(new Set(HELPER_METHODS).size).toBe(LEADER_METHODS.length + TAB_METHODS.length);
  });
});

describe('the shared tabs decisions', () => {
  const left = (patch: Partial<VoiceBrowserStatus>): VoiceBrowserStatus => ({ ...INITIAL_STATUS, ...patch });

  it('has a new leader recover a call or a cleanup, connect an idle connected phone, and leave the rest', () => {
    expect(takeover(undefined)).toBeUndefined();
    expect(takeover(left({ connection: 'ready', busy: true }))).toBe('recover');
    expect(takeover(left({ connection: 'disconnecting' }))).toBe('recover');
    expect(takeover(left({ connection: 'recovery_required' }))).toBe('recover');
    for (const connection of ['connecting', 'ready', 'reconnecting', 'offline', 'renewing'] as const) expect(takeover(left({ connection }))).toBe('connect');
    for (const connection of ['disconnected', 'expired'] as const) expect(takeover(left({ connection }))).toBeUndefined();
  });

  it('keeps a call where it waits, loses one sent to a leader that went, and runs or sends one that waited for a leader', () => {
    const waiting: Pending = { method: 'startCall', args: [], settle: () => undefined };
    const sent: Pending = { ...waiting, to: 'tab-a' };
    expect(redirect(waiting, undefined, false)).toBe('keep');
    expect(redirect(sent, 'tab-a', false)).toBe('keep');
    expect(redirect(sent, 'tab-b', false)).toBe('lost');
    expect(redirect(sent, undefined, false)).toBe('lost');
    expect(redirect(waiting, 'me', true)).toBe('run');
    expect(redirect(waiting, 'tab-b', false)).toBe('send');
    expect(unanswered('startCall')).toEqual({ error: { code: 'call_outcome_unknown', message: 'startCall(): the tab holding the phone closed before answering' } });
    expect(unanswered('connect')).toMatchObject({ error: { code: 'browser_session_unavailable' } });
  });
});
