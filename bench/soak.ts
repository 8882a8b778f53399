import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import type { BenchPage } from './browser.js';
import { kb, ms, quantile, type Row } from './stats.js';

/**
 * Guards: a page that stays open all day keeps working and does not grow (docs/bench.md: 300 calls in one page,
 * heap growth within 1 MB, nothing left running). Many call cycles in one page (call the answer-at-once
 * number, wait for connected, hang up, wait for busy false), then disconnect: the JS heap's growth after
 * garbage collection, and what is left running.
 *
 * @remarks
 * The heap is compared at rest on both sides: connected and idle, once every SIP transaction of the calls
 * before has ended. SIP.js keeps each answered INVITE's server transaction for Timer L, 32 s after the 200 OK
 * (RFC 6026 section 8.7, which holds the session, its streams and messages), so right after the last call
 * the heap still carries about 30 s of calls; that figure is shown too, but it is not growth. Every wait in
 * the page has a deadline: a call that never connects or never ends is counted as failed, never a hang.
 */

interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
  __pcs: Array<WeakRef<RTCPeerConnection>>;
  __sockets: Array<WeakRef<WebSocket>>;
  __timers: Set<unknown>;
}

export interface SoakFigures {
  cycles: number;
  /** Cycles whose call did not connect, or whose step passed its deadline (their reasons, first few). */
  failedCycles: number;
  failures: string[];
  msPerCycleMedian: number;
  msPerCycleP95: number;
  /** Heap after GC, connected and idle, before the cycles and after them (all transactions ended). */
  heapBefore: number;
  heapAfter: number;
  /** Heap after GC right after the last cycle, the last 32 s of transactions still held. */
  heapRightAfter: number;
  /** Timers pending while connected and idle (registration refresh, session expiry, keep-alive). */
  idleTimers: number;
  peerConnectionsLeft: number;
  socketsLeft: number;
  timersLeft: number;
  /** Whether each figure of the soak finished within its own deadline. */
  complete: boolean;
}

/** Deadlines of one cycle's steps: far above the ~150 ms a cycle takes here, so only a stuck call hits them. */
const STEP_MS = 10_000;
/** RFC 6026 Timer L (64 × T1 = 32 s) plus room: the longest any call's transaction outlives it. */
const SETTLE_MS = 40_000;
const BATCH = 25;

interface Batch {
  durations: number[];
  failures: string[];
  /** True when a failed call could not be brought back to idle: the soak stops there. */
  stuck: boolean;
}

/** `count` cycles in the page; each step under {@link STEP_MS}, failures counted, never a hang. */
function cycles(page: BenchPage['page'], count: number): Promise<Batch> {
  return page.evaluate(
    async ({ n, stepMs }) => {
      const { voice, when } = window as unknown as PageGlobals;
      const within = async <T>(work: Promise<T>, what: string): Promise<T> => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${stepMs} ms`)), stepMs)));
        try {
          return await Promise.race([work, late]);
        } finally {
          clearTimeout(timer);
        }
      };
      const batch: Batch = { durations: [], failures: [], stuck: false };
      for (let i = 0; i < n && !batch.stuck; i++) {
        const started = performance.now();
        try {
          const call = await within(voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: crypto.randomUUID() }), 'startCall()');
          await when((s) => s.call?.id === call.id && s.call.state === 'connected', stepMs, 'connected');
          await within(voice.hangup(), 'hangup()');
          await when((s) => !s.busy, stepMs, 'busy false after hangup');
          batch.durations.push(performance.now() - started);
        } catch (error) {
          batch.failures.push(error instanceof Error ? error.message : String(error));
          // Back to idle before the next cycle, or stop: a page still busy takes no call.
          await within(voice.hangup(), 'hangup() after a failure').catch(() => undefined);
          batch.stuck = await when((s) => !s.busy, stepMs).then(() => false, () => true);
        }
      }
      return batch;
    },
    { n: count, stepMs: STEP_MS },
  );
}

/** The page's JS heap in bytes after a full garbage collection. */
async function heapAfterGc(page: BenchPage['page']): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}

const leftovers = (page: BenchPage['page']) =>
  page.evaluate(() => {
    const g = window as unknown as PageGlobals;
    return {
      peerConnections: g.__pcs.filter((ref) => { const pc = ref.deref(); return pc !== undefined && pc.connectionState !== 'closed'; }).length,
      sockets: g.__sockets.filter((ref) => { const socket = ref.deref(); return socket !== undefined && socket.readyState !== WebSocket.CLOSED; }).length,
      timers: g.__timers.size,
    };
  });

/** Waits until at most `timers` are pending in the page (the transactions' timers ran out), up to {@link SETTLE_MS}. */
async function settle(page: BenchPage['page'], timers: number): Promise<boolean> {
  const deadline = Date.now() + SETTLE_MS;
  while (Date.now() < deadline) {
    if ((await leftovers(page)).timers <= timers) return true;
    await page.waitForTimeout(500);
  }
  return false;
}

/** The soak: the cycles, then the heap and what disconnect() leaves; one measurement script, read top to bottom. */
export async function measureSoak(bench: BenchPage, count: number): Promise<{ figures: SoakFigures; rows: Row[] }> {
  const { page } = bench;
  await page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
  const idleTimers = (await leftovers(page)).timers;
  // Warm up: code paths compiled, caches filled, the first getUserMedia done; then its transactions end.
  const warm = await cycles(page, 10);
  let complete = (await settle(page, idleTimers)) && !warm.stuck;
  const heapBefore = await heapAfterGc(page);

  const durations: number[] = [];
  const failures: string[] = [];
  for (let done = 0; done < count && complete; done += BATCH) {
    const batch = await cycles(page, Math.min(BATCH, count - done));
    durations.push(...batch.durations);
    failures.push(...batch.failures);
    complete = !batch.stuck;
    process.stderr.write(`  soak: ${durations.length + failures.length} of ${count} cycles, ${failures.length} failed${process.stderr.isTTY ? '\r' : '\n'}`);
  }
  if (process.stderr.isTTY) process.stderr.write('\n');
  const heapRightAfter = await heapAfterGc(page);
  complete = (await settle(page, idleTimers)) && complete;
  const heapAfter = await heapAfterGc(page);

  await page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
  // disconnect() waits for the unREGISTER; what it leaves is what a page would keep after it.
  complete = (await settle(page, 0)) && complete;
  const left = await leftovers(page);

  const figures: SoakFigures = {
    cycles: durations.length + failures.length,
    failedCycles: failures.length,
    failures: failures.slice(0, 5),
    msPerCycleMedian: quantile(durations, 0.5),
    msPerCycleP95: quantile(durations, 0.95),
    heapBefore,
    heapAfter,
    heapRightAfter,
    idleTimers,
    peerConnectionsLeft: left.peerConnections,
    socketsLeft: left.sockets,
    timersLeft: left.timers,
    complete,
  };
  const growth = heapAfter - heapBefore;
  const rows: Row[] = [
    {
      figure: `soak: ${figures.cycles} call cycles in one page`,
      value: `${figures.failedCycles} failed, ${ms(figures.msPerCycleMedian)} median / ${ms(figures.msPerCycleP95)} p95 a cycle`,
      target: `${count} cycles, none failed`,
      met: complete && figures.cycles === count && figures.failedCycles === 0,
    },
    {
      figure: 'soak: heap growth after GC, at rest',
      value: `${kb(growth)} (${kb(heapBefore)} to ${kb(heapAfter)}; ${kb(heapRightAfter - heapBefore)} right after the last call)`,
      target: '<= 1 MB',
      met: growth <= 1024 * 1024,
    },
    {
      figure: 'soak: left after disconnect()',
      value: `${left.peerConnections} peer connections, ${left.sockets} sockets, ${left.timers} timers`,
      target: '0, 0, 0',
      met: left.peerConnections === 0 && left.sockets === 0 && left.timers === 0,
    },
  ];
  if (failures.length > 0) console.error(`soak failures (first ${figures.failures.length}):\n  ${figures.failures.join('\n  ')}`);
  return { figures, rows };
}
