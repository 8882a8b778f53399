import type { VoiceBrowserStatus } from 'voice-browser';
import { describe, expect, it } from 'vitest';
import { viewOf } from '../src/phone-view.js';

const idle: VoiceBrowserStatus = { connection: 'ready', session: { id: 's1', expiresAt: '2030-01-01T00:00:00Z' }, call: null, attempt: null, busy: false, audio: 'none', muted: false, warnings: [], error: null, offer: null, availability: null, recording: false, tabs: { mode: 'shared', leader: true } };

describe('viewOf', () => {
  it('offers Call only when ready and not busy', () => {
    expect(viewOf(idle)).toMatchObject({ headline: 'Ready to call', canCall: true, canHangUp: false });
    expect(viewOf({ ...idle, busy: true })).toMatchObject({ canCall: false, canHangUp: true });
    expect(viewOf({ ...idle, connection: 'expired' })).toMatchObject({ canCall: false, canRenew: true });
  });

  it('turns Call into Retry call after a lost answer, and only then', () => {
    const attempt = { idempotencyKey: 'k1', input: { from: '+12025550199', to: '+12025550100' } };
    expect(viewOf({ ...idle, busy: true, attempt: { ...attempt, phase: 'outcome_unknown' } })).toMatchObject({ callLabel: 'Retry call', canCall: true });
    expect(viewOf({ ...idle, busy: true, attempt: { ...attempt, phase: 'creating' } })).toMatchObject({ callLabel: 'Call', canCall: false });
  });

  it('says why a call ended, and falls back to plain words for a reason it does not know', () => {
    const ended = (endReason: string) => viewOf({ ...idle, call: { id: 'c1', state: 'ended', to: '+12025550100', endReason } }).headline;
    expect(ended('recipient_busy')).toBe('Call ended: the line was busy');
    expect(ended('something_new')).toBe('Call ended');
  });

  it("words an error with the helper's message and what to do next", () => {
    const view = viewOf({ ...idle, error: { code: 'compliance_dnc', message: 'The number is on a do-not-call list.' } });
    expect(view.problem).toMatch(/^The number is on a do-not-call list\. .*blocked for compliance/);
  });
});
