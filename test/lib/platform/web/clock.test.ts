import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../../../lib/platform/web/system-clock.js';
import { FakeClock } from '../../../../lib/testing/fake-clock.js';

describe('systemClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves the global timers on use, so a page (or a test) that replaces them later is followed', () => {
    vi.useFakeTimers({ now: 5000 });
    const fired: number[] = [];
    const handle = systemClock.setTimeout(() => fired.push(systemClock.now()), 100);
    systemClock.setTimeout(() => fired.push(-1), 50);
    systemClock.clearTimeout(handle);
    vi.advanceTimersByTime(200);
    expect(fired).toEqual([-1]);
    expect(systemClock.now()).toBe(5200);
  });
});

/** The suite's fake clock is a test fixture the other tests lean on: its own promises are checked here. */
describe('FakeClock', () => {
  it('runs due timers in time order, ties in the order they were set, and leaves later ones pending', async () => {
    const clock = new FakeClock(100);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push('late'), 31);
    await clock.advance(30);
    expect(fired).toEqual(['a@110', 'b@120', 'c@120']);
    expect(clock.now()).toBe(130);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextDueAt).toBe(131);
  });

  it('runs timers set by timers within the same advance, at their own due time', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const tick = () => {
      fired.push(clock.now());
      clock.setTimeout(tick, 1000);
    };
    clock.setTimeout(tick, 1000);
    await clock.advance(3500);
    expect(fired).toEqual([1000, 2000, 3000]);
  });

  it('lets promise callbacks run between timers, so async work started by one timer is seen by the next', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    clock.setTimeout(() => {
      void Promise.resolve()
        .then(() => Promise.resolve('answer'))
        .then((value) => seen.push(value));
    }, 10);
    clock.setTimeout(() => seen.push(`second sees ${seen.length}`), 10);
    await clock.advance(10);
    expect(seen).toEqual(['answer', 'second sees 1']);
  });

  it('does not run a cleared timer', async () => {
    const clock = new FakeClock();
    const fired: string[] = [];
    const handle = clock.setTimeout(() => fired.push('cleared'), 10);
    clock.setTimeout(() => clock.clearTimeout(later), 5);
    const later = clock.setTimeout(() => fired.push('cleared by a timer'), 10);
    clock.clearTimeout(handle);
    clock.clearTimeout(undefined);
    await clock.advance(100);
    expect(fired).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });
});
