import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { QueueCaller, VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import { withDeskBench } from './desk-bench.js';
import { createStamps, STEP_TIMEOUT_MS, type Stamps } from './desk-app.js';
import { ms, spread, staggerMs, type Row, type Spread } from './stats.js';

/**
 * Support desks (docs/bench.md): how soon an agent's page lists a caller who reached a queue, and how
 * soon Answer next has that caller on the line. The simulator in its own process; the demo server's app
 * (`createDemoApp`, the demo's two queues, `createDemoQueues`) in this one, on loopback, so the moment the
 * proxy's receiver gets a `call.received` webhook is taken here, in front of the app; one Chromium page with the
 * script-tag library, logged in and connected, watching the queues with `watchQueues()`.
 *
 * @remarks
 * Webhook to page: both ends are this process's `performance.now()`, the page's end when its listener's report
 * (`exposeFunction`) arrives, so no clocks are compared; that report's trip over the DevTools protocol is in the
 * figure. Answer next to connected: the page's own `performance.now()` at `answerNext()` and at the `onStatus`
 * that shows the call `connected` (the service's `established`), the call then hung up and `busy` false before
 * the next. Each run waits a different fraction of a second first, so the page's 1 s reads and the stream's
 * timers meet it at a different phase.
 */

/** What the bench page puts on `window`, and what this part adds. */
interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
  /** Reports a caller the listener sees for the first time to this process (`exposeFunction`). */
  __callerShown(callId: string): Promise<void>;
}

/** The part's figures, as written to bench/results/. */
export interface QueuesFigures {
  /** From the `call.received` webhook reaching the proxy's app to the page's listener reporting the caller. */
  webhookToPage: Spread;
  /** From the simulator's control call that makes the caller arrive (before its webhook) to the same report. */
  arrivalToPage: Spread;
  /** From `answerNext()` to `onStatus` showing the call `connected`, in the page. */
  answerNextToConnected: Spread;
}

/** The number the callers dialled. */
const LINE = '+18005550100';

/** Watches the queues in the page, each new caller reported to `shown`; resolves once the first snapshot is in. */
async function watchInPage(page: Page, shown: Stamps): Promise<void> {
  await page.exposeFunction('__callerShown', (callId: string) => shown.note(callId, performance.now()));
  const opened = page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const w = window as unknown as PageGlobals;
        const listed = new Set<string>();
        w.voice.watchQueues((callers: readonly QueueCaller[]) => {
          resolve();
          for (const { callId } of callers) {
            if (listed.has(callId)) continue;
            listed.add(callId);
            void w.__callerShown(callId);
          }
        });
      }),
  );
  const late = sleep(STEP_TIMEOUT_MS).then(() => Promise.reject(new Error(`bench: no snapshot from the queue event stream in ${STEP_TIMEOUT_MS} ms`)));
  await Promise.race([opened, late]);
}

/** Claims the next caller of `queueId` in the page; ms from `answerNext()` to `connected`, then hangs up and settles. */
async function answerOnce(page: Page, queueId: string): Promise<number> {
  return page.evaluate(
    async ({ queueId, timeoutMs }) => {
      const { voice, when } = window as unknown as PageGlobals;
      let connectedAt = 0;
      const isConnected = (status: VoiceBrowserStatus) => {
        if (status.call?.state !== 'connected') return false;
        connectedAt ||= performance.now();
        return true;
      };
      const connected = when(isConnected, timeoutMs, 'connected after answerNext()');
      const started = performance.now();
      try {
        await voice.answerNext(queueId);
        await connected;
      } catch (error) {
        const code = (error as { code?: string }).code;
        throw new Error(`answerNext(): ${code ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
      }
      await voice.hangup();
      await when((status) => !status.busy, timeoutMs, 'busy false after hangup()');
      return connectedAt - started;
    },
    { queueId, timeoutMs: STEP_TIMEOUT_MS },
  );
}

/**
 * `runs` callers arrive one at a time, each timed to the page; then the page answers `runs` of them in turn.
 * One measurement script, read top to bottom.
 */
export async function measureQueues(runs: number): Promise<{ rows: Row[]; figures: QueuesFigures }> {
  const received = createStamps();
  const shown = createStamps();
  return withDeskBench('bench-queues', received, undefined, async ({ desk, control, page }) => {
    await page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
    await watchInPage(page, shown);
    const toPage: number[] = [];
    const fromArrival: number[] = [];
    for (let run = 0; run < runs; run++) {
      await sleep(staggerMs(run));
      const asked = performance.now();
      const caller = await control.inbound({ queueId: desk.queueId, from: `+1415555${String(2000 + run)}`, to: LINE });
      const listed = await shown.at(caller.id, 'the caller in the page');
      toPage.push(listed - (await received.at(`call.received:${caller.id}`, 'the call.received webhook')));
      fromArrival.push(listed - asked);
    }
    const answers: number[] = [];
    for (let run = 0; run < runs; run++) {
      await sleep(staggerMs(run));
      answers.push(await answerOnce(page, desk.queueId));
    }
    await page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
    return report({ webhookToPage: spread(toPage), arrivalToPage: spread(fromArrival), answerNextToConnected: spread(answers) });
  });
}

/** The part's rows beside docs/bench.md's targets. */
function report(figures: QueuesFigures): { rows: Row[]; figures: QueuesFigures } {
  const both = (s: Spread) => `${ms(s.median)} median, ${ms(s.p95)} p95 (${s.runs} runs)`;
  const { webhookToPage, arrivalToPage, answerNextToConnected } = figures;
  return {
    figures,
    rows: [
      { figure: 'queues: call.received reaches the proxy → watchQueues() lists the caller', value: both(webhookToPage), target: '<= 100 ms median', met: webhookToPage.median <= 100 },
      { figure: 'queues: simulator /__sim/inbound called → watchQueues() lists the caller', value: both(arrivalToPage), target: 'measured', met: true },
      { figure: 'queues: answerNext() → connected (established)', value: both(answerNextToConnected), target: '<= 250 ms median', met: answerNextToConnected.median <= 250 },
    ],
  };
}
