import { describe, expect, it } from 'vitest';
import { redirect, takeover, unanswered, type Pending } from '../../../../lib/api/tabs/shared-tabs.js';
import { INITIAL_STATUS } from '../../../../lib/core/status-snapshot.js';
import type { VoiceBrowserStatus } from '../../../../lib/core/types.js';

/** The shared tabs' decisions (lib/api/tabs/shared-tabs.ts) taken alone: what a new leader takes over, where a waiting call goes. */

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
