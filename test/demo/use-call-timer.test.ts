import { describe, expect, it } from 'vitest';
import { timerStart } from '../../demo/models/use-call-timer.js';

describe('the call timer', () => {
  const now = Date.parse('2026-11-24T10:00:30Z');
  const call = { id: 'bc_1', state: 'connected', answeredAt: '2026-11-24T10:00:00Z' };

  it('counts a call this page saw answered from the moment it saw it', () => {
    expect(timerStart(call, false, now)).toBe(now);
  });

  it("counts a call first seen connected (after a reload) from the service's answeredAt, never from the future", () => {
    expect(timerStart(call, true, now)).toBe(Date.parse('2026-11-24T10:00:00Z'));
    expect(timerStart({ ...call, answeredAt: '2026-11-24T10:01:00Z' }, true, now)).toBe(now);
    expect(timerStart({ id: 'bc_1', state: 'connected' }, true, now)).toBe(now);
  });
});
