import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import type { BenchPage } from './browser.js';
import { kb, ms, type Row } from './stats.js';

/**
 * Soak: many call cycles (call the answer-at-once number, wait for connected, hang up, wait for busy false)
 * in one page, then disconnect: heap growth after garbage collection, and what is left running.
 */

interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean): Promise<number>;
  __pcs: Array<WeakRef<RTCPeerConnection>>;
  __sockets: Array<WeakRef<WebSocket>>;
  __timers: Set<unknown>;
}

export interface SoakFigures {
  cycles: number;
  msPerCycle: number;
  heapBefore: number;
  heapAfter: number;
  peerConnectionsLeft: number;
  socketsLeft: number;
  timersLeft: number;
  timersLeftAfter35s: number;
}

async function cycles(page: BenchPage['page'], count: number): Promise<void> {
  await page.evaluate(async (n) => {
    const { voice, when } = window as unknown as PageGlobals;
    for (let i = 0; i < n; i++) {
      const connected = when((s) => s.call?.state === 'connected');
      await voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: crypto.randomUUID() });
      await connected;
      await voice.hangup();
      await when((s) => !s.busy);
    }
  }, count);
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

export async function measureSoak(bench: BenchPage, count: number): Promise<{ figures: SoakFigures; rows: Row[] }> {
  const { page } = bench;
  await page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
  // Warm up: code paths compiled, caches filled, the first getUserMedia done.
  await cycles(page, 10);
  const heapBefore = await heapAfterGc(page);
  const started = Date.now();
  for (let done = 0; done < count; done += 50) await cycles(page, Math.min(50, count - done));
  const msPerCycle = (Date.now() - started) / count;
  const heapAfter = await heapAfterGc(page);
  await page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
  const left = await leftovers(page);
  // SIP transactions keep their retransmission timers up to 32 s (RFC 3261 timer J) after the last request.
  await page.waitForTimeout(35_000);
  const later = await leftovers(page);

  const figures: SoakFigures = {
    cycles: count,
    msPerCycle,
    heapBefore,
    heapAfter,
    peerConnectionsLeft: left.peerConnections,
    socketsLeft: left.sockets,
    timersLeft: left.timers,
    timersLeftAfter35s: later.timers,
  };
  const growth = heapAfter - heapBefore;
  const rows: Row[] = [
    { figure: `soak: ${count} call cycles, heap growth`, value: `${kb(growth)} (${ms(msPerCycle)} a cycle)`, target: '<= 1 MB', met: growth <= 1024 * 1024 },
    {
      figure: 'soak: left after disconnect()',
      value: `${left.peerConnections} peer connections, ${left.sockets} sockets, ${left.timers} timers (${later.timers} after 35 s)`,
      target: '0, 0, 0',
      met: left.peerConnections === 0 && left.sockets === 0 && later.timers === 0,
    },
  ];
  return { figures, rows };
}
