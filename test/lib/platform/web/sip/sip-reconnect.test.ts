import { describe, expect, it } from 'vitest';
import { backoffMs, createReconnection, RETRY_MAX_MS, SETTLED_MS } from '../../../../../lib/platform/web/sip/sip-reconnect.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';

/** The reconnection's timing (lib/platform/web/sip/sip-reconnect.ts, RFC 5626 section 4.5), on a fake clock. */

describe('the back-off', () => {
  it('goes at once first, then waits between half and all of a bound that doubles from 1 s, capped', () => {
    expect(backoffMs(0, () => 0.7)).toBe(0);
    expect([1, 2, 3, 4].map((failures) => backoffMs(failures, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((failures) => backoffMs(failures, () => 1))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(40, () => 1)).toBe(RETRY_MAX_MS);
  });
});

describe('the reconnection', () => {
  /** A reconnection whose attempts fail while `failing`, each attempt's time in `tried`; draws the longest wait. */
  function reconnecting(failing: () => unknown) {
    const clock = new FakeClock(0);
    const tried: number[] = [];
    let wanted = true;
    const reconnection = createReconnection({
      clock,
      random: () => 1,
      attempt: async () => {
        tried.push(clock.now());
        const failure = failing();
        if (failure) throw failure;
      },
      wanted: () => wanted,
      final: (error) => error === 'refused',
    });
    return { clock, tried, reconnection, stop: () => (wanted = false) };
  }

  it('never gives up while wanted, waits at least a Retry-After, and ends on a final refusal', async () => {
    let answer: unknown = { retryAfterMs: 20_000 };
    const { clock, tried, reconnection } = reconnecting(() => answer);
    const run = reconnection.run();
    await clock.advance(0);
    answer = new Error('edge away');
    await clock.advance(20_000 + 2000 + 4000 + 8000 + 16_000 + 30_000 * 10);
    expect(tried.slice(0, 6)).toEqual([0, 20_000, 22_000, 26_000, 34_000, 50_000]);
    expect(tried.length).toBe(16);
    answer = 'refused';
    await clock.advance(RETRY_MAX_MS);
    expect(await run).toEqual({ restored: false, final: 'refused' });
  });

  it('stops when no longer wanted, and a wake makes the waiting attempt now', async () => {
    let failing = true;
    const { clock, tried, reconnection, stop } = reconnecting(() => failing && new Error('away'));
    const run = reconnection.run();
    await clock.advance(500);
    expect(reconnection.wake()).toBe(true);
    await clock.advance(0);
    expect(tried).toEqual([0, 500]);
    stop();
    failing = false;
    await clock.advance(RETRY_MAX_MS);
    expect(await run).toEqual({ restored: false });
  });

  it('counts a flow lost soon after its restore as a failure, and starts afresh after one that held', async () => {
    const { clock, tried, reconnection } = reconnecting(() => undefined);
    await reconnection.run();
    await clock.advance(SETTLED_MS - 1);
    const again = reconnection.run();
    await clock.advance(1000);
    await again;
    expect(tried).toEqual([0, SETTLED_MS - 1 + 1000]);
    await clock.advance(SETTLED_MS);
    await reconnection.run();
    expect(tried.at(-1)).toBe(tried.at(-2)! + SETTLED_MS);
  });
});
