import { describe, expect, it } from 'vitest';
import { VoiceBrowserError } from '../../../lib/core/errors.js';
import { createPoller, EXPECT_RETRY_MS, EXPECT_TRIES, type Poller } from '../../../lib/runtime/poller.js';
import type { BrowserCall } from '../../../lib/core/types.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';

/** A read the test answers by hand, to hold it in flight. */
interface PendingRead {
  at: number;
  signal: AbortSignal;
  resolve(call: BrowserCall): void;
  reject(error: unknown): void;
}

/** A call service seen through the poller's `read`: answers at once with `current`, or parks reads when `slow`. */
function setup(options: { slow?: boolean } = {}) {
  const clock = new FakeClock();
  const reads: PendingRead[] = [];
  const seen: BrowserCall[] = [];
  const errors: unknown[] = [];
  const service = {
    current: { id: 'call-1', state: 'waiting_agent', busy: true } as BrowserCall,
    /** Errors to answer the next reads with, one each. */
    faults: [] as unknown[],
  };
  const poller: Poller = createPoller({
    clock,
    read: (signal) =>
      new Promise<BrowserCall>((resolve, reject) => {
        reads.push({ at: clock.now(), signal, resolve, reject });
        if (options.slow) return;
        const fault = service.faults.shift();
        if (fault !== undefined) reject(fault);
        else resolve({ ...service.current });
      }),
    isTerminal: (call) => call.busy === false,
    onRead: (call) => seen.push(call),
    onError: (error) => errors.push(error),
  });
  return { clock, reads, seen, errors, service, poller };
}

describe('createPoller', () => {
  it('reads first after one interval, not at once', async () => {
    const { clock, reads } = setup();
    await clock.advance(999);
    expect(reads).toHaveLength(0);
    await clock.advance(1);
    expect(reads.map((r) => r.at)).toEqual([1000]);
  });

  it('reads about once a second', async () => {
    const { clock, reads, seen, poller } = setup();
    await clock.advance(60_000);
    expect(reads).toHaveLength(60);
    expect(reads.map((r) => r.at).slice(0, 3)).toEqual([1000, 2000, 3000]);
    expect(seen).toHaveLength(60);
    poller.stop();
  });

  it('never has two reads in flight: pollNow() during a slow read asks for exactly one read right after it', async () => {
    const { clock, reads, poller } = setup({ slow: true });
    await clock.advance(1000);
    expect(reads).toHaveLength(1);

    // The read takes 5 s; the ticks it spans and three SIP events must not start a second one.
    poller.pollNow();
    await clock.advance(2500);
    poller.pollNow();
    poller.pollNow();
    await clock.advance(2500);
    expect(reads).toHaveLength(1);

    reads[0]!.resolve({ id: 'call-1', state: 'dialing_recipient', busy: true });
    await clock.flush();
    expect(reads).toHaveLength(2);
    expect(reads[1]!.at).toBe(6000);

    // The extra read answered, the poller is back on its interval: nothing else is owed.
    reads[1]!.resolve({ id: 'call-1', state: 'dialing_recipient', busy: true });
    await clock.advance(999);
    expect(reads).toHaveLength(2);
    await clock.advance(1);
    expect(reads).toHaveLength(3);
    poller.stop();
  });

  it('reads at once on pollNow() when no read is in flight, then keeps its interval', async () => {
    const { clock, reads, poller } = setup();
    await clock.advance(300);
    poller.pollNow();
    await clock.flush();
    expect(reads.map((r) => r.at)).toEqual([300]);
    await clock.advance(1000);
    expect(reads.map((r) => r.at)).toEqual([300, 1300]);
    poller.stop();
  });

  it('stops by itself at a terminal read and leaves no timer', async () => {
    const { clock, reads, seen, service, poller } = setup();
    await clock.advance(2000);
    service.current = { id: 'call-1', state: 'ended', busy: false };
    await clock.advance(1000);
    expect(seen.at(-1)?.state).toBe('ended');
    expect(poller.stopped).toBe(true);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(10_000);
    expect(reads).toHaveLength(3);
  });

  it('waits the Retry-After of a 429 before the next read', async () => {
    const { clock, reads, errors, service, poller } = setup();
    service.faults.push(new VoiceBrowserError('rate_limited', 'slow down', { status: 429, retryAfterMs: 5000 }));
    await clock.advance(1000);
    expect(errors).toHaveLength(1);
    await clock.advance(4999);
    expect(reads).toHaveLength(1);
    await clock.advance(1);
    expect(reads.map((r) => r.at)).toEqual([1000, 6000]);
    // Back to the normal interval after a good read.
    await clock.advance(1000);
    expect(reads.map((r) => r.at)).toEqual([1000, 6000, 7000]);
    poller.stop();
  });

  it('keeps reading on its interval after a failed read that is not a 429', async () => {
    const { clock, reads, errors, service, poller } = setup();
    service.faults.push(new VoiceBrowserError('network_error', 'no answer', { status: 0 }));
    await clock.advance(2000);
    expect(errors).toHaveLength(1);
    expect(reads.map((r) => r.at)).toEqual([1000, 2000]);
    poller.stop();
  });

  it('stop() aborts the signal of the read in flight and leaves no timer', async () => {
    const { clock, reads, seen, errors, poller } = setup({ slow: true });
    await clock.advance(1000);
    const read = reads[0]!;
    expect(read.signal.aborted).toBe(false);

    poller.stop();
    expect(read.signal.aborted).toBe(true);
    expect(poller.stopped).toBe(true);
    expect(clock.pendingTimers).toBe(0);

    // The aborted read's late answer or rejection is nobody's business any more.
    read.reject(new DOMException('aborted', 'AbortError'));
    await clock.advance(10_000);
    expect(reads).toHaveLength(1);
    expect(seen).toHaveLength(0);
    expect(errors).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('stop() between reads clears the pending tick, and pollNow() after it does nothing', async () => {
    const { clock, reads, poller } = setup();
    await clock.advance(1500);
    expect(clock.pendingTimers).toBe(1);
    poller.stop();
    expect(clock.pendingTimers).toBe(0);
    poller.pollNow();
    await clock.advance(5000);
    expect(reads).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });

  describe('pollNow(expect): a SIP event the service may not have written yet', () => {
    const stillWaiting = (seen: BrowserCall[]) => ({ shown: () => seen.at(-1)?.state !== 'waiting_agent' });

    it('reads again soon while the change is not shown, then on its interval from the read that shows it', async () => {
      const { clock, reads, seen, service, poller } = setup();
      await clock.advance(300);
      poller.pollNow(stillWaiting(seen));
      await clock.flush();
      expect(reads.map((r) => r.at)).toEqual([300]);
      await clock.advance(EXPECT_RETRY_MS);
      expect(reads.map((r) => r.at)).toEqual([300, 300 + EXPECT_RETRY_MS]);

      // The service has written it now: the next read shows it, and the poller is back to once a second.
      service.current = { id: 'call-1', state: 'dialing_recipient', busy: true };
      await clock.advance(EXPECT_RETRY_MS);
      const shownAt = 300 + 2 * EXPECT_RETRY_MS;
      expect(reads.map((r) => r.at)).toEqual([300, 300 + EXPECT_RETRY_MS, shownAt]);
      expect(seen.at(-1)?.state).toBe('dialing_recipient');
      await clock.advance(999);
      expect(reads).toHaveLength(3);
      await clock.advance(1);
      expect(reads.at(-1)?.at).toBe(shownAt + 1000);
      poller.stop();
    });

    it(`gives up after ${EXPECT_TRIES} quick reads when the change never shows, and never has two in flight`, async () => {
      const { clock, reads, seen, poller } = setup();
      poller.pollNow(stillWaiting(seen));
      await clock.advance(EXPECT_TRIES * EXPECT_RETRY_MS);
      const quick = [0, ...Array.from({ length: EXPECT_TRIES }, (_, i) => (i + 1) * EXPECT_RETRY_MS)];
      expect(reads.map((r) => r.at)).toEqual(quick);
      await clock.advance(999);
      expect(reads).toHaveLength(quick.length);
      await clock.advance(1);
      expect(reads.at(-1)?.at).toBe(EXPECT_TRIES * EXPECT_RETRY_MS + 1000);
      poller.stop();
    });

    it('a 429 ends the quick reads: the Retry-After is waited in full', async () => {
      const { clock, reads, seen, service, poller } = setup();
      service.faults.push(new VoiceBrowserError('rate_limited', 'slow down', { status: 429, retryAfterMs: 3000 }));
      poller.pollNow(stillWaiting(seen));
      await clock.advance(2999);
      expect(reads.map((r) => r.at)).toEqual([0]);
      await clock.advance(1);
      expect(reads.map((r) => r.at)).toEqual([0, 3000]);
      await clock.advance(999);
      expect(reads).toHaveLength(2);
      poller.stop();
    });
  });
});
