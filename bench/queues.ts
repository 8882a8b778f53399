import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import type { Page } from 'playwright-core';
import type { QueueCaller, VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import { createDemoApp } from '../server-proxy/app.js';
import { createDemoQueues } from '../server-proxy/demo-queues.js';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import { createSimulatorControl } from '../simulator/control-client.js';
import { openBenchPage } from './browser.js';
import { startBenchSimulator } from './simulator-process.js';
import { ms, spread, type Row, type Spread } from './stats.js';

/**
 * Support desks (DESIGN.md, "Targets"): how soon an agent's page lists a caller who reached a queue, and how
 * soon Answer next has that caller on the line. The simulator in its own process; the demo server's app
 * (`createDemoApp`, the demo's two queues from demo-queues.ts) in this one, on loopback, so the moment the
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

/** What the bench page (browser.ts) puts on `window`, and what this part adds. */
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

/** The number the callers dialled, and how long one step may take before the run fails naming it. */
const LINE = '+18005550100';
const STEP_TIMEOUT_MS = 10_000;

/** Moments by call id, noted once; `at` waits for one still to come. */
function createStamps() {
  const stamps = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  return {
    note(id: string, at: number): void {
      if (stamps.has(id)) return;
      stamps.set(id, at);
      waiting.get(id)?.(at);
    },
    async at(id: string, what: string): Promise<number> {
      const noted = stamps.get(id);
      if (noted !== undefined) return noted;
      const timeout = AbortSignal.timeout(STEP_TIMEOUT_MS);
      return new Promise<number>((resolve, reject) => {
        waiting.set(id, resolve);
        timeout.addEventListener('abort', () => reject(new Error(`bench: ${what} for ${id} not seen in ${STEP_TIMEOUT_MS} ms`)));
      }).finally(() => waiting.delete(id));
    },
  };
}

type Stamps = ReturnType<typeof createStamps>;

/**
 * The app's handler, noting when each `call.received` webhook reaches it, before the receiver checks its
 * signature; the body is read from a copy, so the app's own reading waits for nothing.
 */
function noteWebhooks(app: { fetch(request: Request): Response | Promise<Response> }, received: Stamps) {
  return (request: Request) => {
    if (request.method === 'POST' && new URL(request.url).pathname === '/voice/queue-events') {
      const at = performance.now();
      void request
        .clone()
        .json()
        .then((event: { event?: string; callId?: string }) => event.event === 'call.received' && event.callId && received.note(event.callId, at))
        .catch(() => undefined);
    }
    return app.fetch(request);
  };
}

/**
 * The demo server's app on a free loopback port, against the simulator at `simUrl`, with its queues made there
 * (their `notifyUrl` needs the port, so it listens first, as server-proxy/main.ts does).
 */
async function startDesk(simUrl: string, received: Stamps): Promise<{ url: string; queueId: string; close(): Promise<void> }> {
  const voice = { baseUrl: `${simUrl}/api`, apiKey: DEFAULT_SIM_API_KEY };
  let serve: RequestListener = (_request, response) => void response.writeHead(503, { 'retry-after': '1' }).end();
  const server = createServer((request, response) => serve(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  let refusal = 'the queues could not be made';
  const queues = await createDemoQueues(voice, `${url}/voice/queue-events`, undefined, (line) => (refusal = line));
  if (!queues) {
    await close();
    throw new Error(refusal);
  }
  const app = createDemoApp({
    voice,
    sessionSecret: randomBytes(32).toString('base64url'),
    demoRoot: fileURLToPath(new URL('../dist/demo', import.meta.url)),
    libRoot: fileURLToPath(new URL('../lib/dist', import.meta.url)),
    // The per-user limits are the proxy's guard for the key's quota, not what is measured here.
    rateLimit: false,
    logLevel: 'warn',
    queues: { notifySecret: queues.notifySecret, queuesFor: () => queues.ids },
  });
  serve = getRequestListener(noteWebhooks(app, received));
  return { url, queueId: queues.ids[0] as string, close };
}

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

/** Run `run`'s wait before it starts: spread over a second, in an order that does not rise with the runs. */
const staggerMs = (run: number) => (run * 373) % 1000;

/**
 * `runs` callers arrive one at a time, each timed to the page; then the page answers `runs` of them in turn.
 * One measurement script, read top to bottom.
 */
export async function measureQueues(runs: number): Promise<{ rows: Row[]; figures: QueuesFigures }> {
  const simulator = await startBenchSimulator();
  const received = createStamps();
  const shown = createStamps();
  const desk = await startDesk(simulator.url, received).catch(async (error: unknown) => {
    await simulator.stop();
    throw error;
  });
  const control = createSimulatorControl(simulator.url);
  const bench = await openBenchPage(desk.url, 'bench-queues').catch(async (error: unknown) => {
    await Promise.all([desk.close(), simulator.stop()]);
    throw error;
  });
  try {
    const { page } = bench;
    await page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
    await watchInPage(page, shown);
    const toPage: number[] = [];
    const fromArrival: number[] = [];
    for (let run = 0; run < runs; run++) {
      await sleep(staggerMs(run));
      const asked = performance.now();
      const caller = await control.inbound({ queueId: desk.queueId, from: `+1415555${String(2000 + run)}`, to: LINE });
      const listed = await shown.at(caller.id, 'the caller in the page');
      toPage.push(listed - (await received.at(caller.id, 'the call.received webhook')));
      fromArrival.push(listed - asked);
    }
    const answers: number[] = [];
    for (let run = 0; run < runs; run++) {
      await sleep(staggerMs(run));
      answers.push(await answerOnce(page, desk.queueId));
    }
    await page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
    return report({ webhookToPage: spread(toPage), arrivalToPage: spread(fromArrival), answerNextToConnected: spread(answers) });
  } finally {
    await bench.close();
    await desk.close();
    await simulator.stop();
  }
}

/** The part's rows beside DESIGN.md's targets. */
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
