import type { FakeClock } from '../../../lib/testing/fake-clock.js';

/**
 * Settles `work` on a fake clock, moving time only while the code waits on a timer due within `nearMs`: a
 * pause between reads moves on at once, while a far timer (an upstream request's time limit, armed while
 * in-process I/O is still under way) is left alone until that I/O has had its turn. So the test's time is the
 * clock's alone, whatever the machine's load; `giveUpMs` of clock time bounds the loop so a hang fails the test.
 */
export async function settleOnClock<T>(clock: FakeClock, work: Promise<T>, nearMs: number, giveUpMs = 600_000): Promise<T> {
  let settled = false;
  const watched = work.finally(() => {
    settled = true;
  });
  // The caller awaits the returned promise; this copy only stops the loop.
  watched.catch(() => undefined);
  const start = clock.now();
  while (!settled && clock.now() - start <= giveUpMs) {
    await clock.flush();
    if (settled) break;
    const due = clock.nextDueAt;
    if (due !== undefined && due - clock.now() <= nearMs) await clock.advance(due - clock.now());
    else await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
  return watched;
}
