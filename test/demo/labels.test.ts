import { describe, expect, it } from 'vitest';
import { callButtonLabel, callLabel, canCall, canHangUp, connectionLabel } from '../../demo/labels.js';
import type { VoiceBrowserStatus } from '../../lib/index.js';

const idle: VoiceBrowserStatus = { connection: 'ready', session: { id: 'bs_1', expiresAt: '2026-01-01T00:00:00Z' }, call: null, attempt: null, busy: false, audio: 'none', muted: false, error: null };
const attempt = (phase: 'creating' | 'admitted' | 'outcome_unknown') => ({ idempotencyKey: 'k', input: { from: '+12025550199', to: '+12025550100' }, phase });

describe('demo labels', () => {
  it('names every connection state in words', () => {
    expect(connectionLabel('ready')).toBe('Ready');
    expect(connectionLabel('recovery_required')).toBe('Recovery required');
    expect(connectionLabel('disconnected')).toBe('Not connected');
  });

  it("shows the service's call state, or what the attempt waits for", () => {
    expect(callLabel(idle)).toBe('no call');
    expect(callLabel({ ...idle, busy: true, attempt: attempt('creating') })).toBe('requesting…');
    expect(callLabel({ ...idle, busy: true, attempt: attempt('outcome_unknown') })).toBe('outcome unknown');
    expect(callLabel({ ...idle, busy: true, attempt: attempt('admitted'), call: { id: 'bc_1', state: 'dialing_recipient' } })).toBe('dialing_recipient');
  });

  it('allows a call when idle and a retry of the same attempt after a lost answer, nothing else while busy', () => {
    expect(canCall(idle)).toBe(true);
    expect(canCall({ ...idle, connection: 'connecting' })).toBe(false);
    expect(canCall({ ...idle, busy: true, attempt: attempt('creating') })).toBe(false);
    expect(canCall({ ...idle, busy: true, attempt: attempt('outcome_unknown') })).toBe(true);
    expect(callButtonLabel({ ...idle, busy: true, attempt: attempt('outcome_unknown') })).toBe('Retry call');
    expect(callButtonLabel(idle)).toBe('Call');
  });

  it('offers hang up only for a busy call the service named, and not twice while ending', () => {
    const call = { id: 'bc_1', state: 'connected' };
    expect(canHangUp({ ...idle, busy: true, call })).toBe(true);
    expect(canHangUp({ ...idle, busy: true, call: { ...call, state: 'ending' } })).toBe(false);
    expect(canHangUp({ ...idle, busy: true, attempt: attempt('creating') })).toBe(false);
    expect(canHangUp({ ...idle, busy: false, call: { ...call, state: 'ended' } })).toBe(false);
  });
});
