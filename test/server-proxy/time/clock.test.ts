import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { every, pause } from '../../../server-proxy/time/clock.js';
import { timeoutSignal, withinDeadline } from '../../../server-proxy/time/deadline.js';

/**
 * The proxy's time helpers on a fake clock: what repeats, pauses and deadlines do is decided by the clock
 * they are given, so a test moves time instead of waiting for it.
 */

describe('every', () => {
  it('runs at each interval the clock passes, and never again once stopped', async () => {
    const clock = new FakeClock();
    const ran: number[] = [];
    const stop = every(clock, 1000, () => ran.push(clock.now()));
    await clock.advance(3500);
    expect(ran).toEqual([1000, 2000, 3000]);
    stop();
    await clock.advance(5000);
    expect(ran).toEqual([1000, 2000, 3000]);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('pause', () => {
  it('resolves only once the clock has moved past it', async () => {
    const clock = new FakeClock();
    let done = false;
    void pause(clock, 300).then(() => (done = true));
    await clock.advance(299);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(done).toBe(true);
  });
});

describe('the deadlines', () => {
  it('answers late() when the work outlives its time, and clears the timer when it does not', async () => {
    const clock = new FakeClock();
    const late = withinDeadline(new Promise<string>(() => undefined), 1000, () => 'late', clock);
    await clock.advance(1000);
    await expect(late).resolves.toBe('late');
    await expect(withinDeadline(Promise.resolve('done'), 1000, () => 'late', clock)).resolves.toBe('done');
    expect(clock.pendingTimers).toBe(0);
  });

  it('aborts its signal with a TimeoutError when the clock passes it, and not once cleared', async () => {
    const clock = new FakeClock();
    const timed = timeoutSignal(clock, 500, 'no answer in time');
    await clock.advance(500);
    expect(timed.signal.aborted).toBe(true);
    expect(timed.signal.reason).toBeInstanceOf(DOMException);
    expect((timed.signal.reason as DOMException).name).toBe('TimeoutError');
    const cleared = timeoutSignal(clock, 500, 'no answer in time');
    cleared.clear();
    await clock.advance(1000);
    expect(cleared.signal.aborted).toBe(false);
  });
});
