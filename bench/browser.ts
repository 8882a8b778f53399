import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, firefox, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_LAUNCH, FIREFOX_LAUNCH } from '../e2e/browsers.js';

/**
 * The page the latency and soak parts measure in, as a user's page runs the library: Debian's Chromium with the
 * e2e flags (loopback only, fake media), or for the latency part's comparison Debian's Firefox ESR with the e2e
 * preferences, logged in to the demo server, with the script-tag library loaded and the page's peer
 * connections, timers and WebSockets counted so leaks can be seen.
 */

/** The browser a bench page runs in. */
export type Engine = 'chromium' | 'firefox';

export interface BenchPage {
  page: Page;
  close(): Promise<void>;
}

/**
 * Runs in the page before anything else: counts what could leak. Weak references, so that the counting
 * itself keeps nothing alive for the heap figure, and pruned of the closed or collected at each new one, so
 * that a long soak's lists do not grow with every call. `__timers` holds the pending timeouts and the
 * intervals not yet cleared (SIP.js uses one for the INVITE's provisional responses).
 * One function past 40 lines because it runs in the page: Playwright sends it there as one script.
 */
function instrument(): void {
  const w = window as unknown as Record<string, unknown>;
  const pcs: Array<WeakRef<RTCPeerConnection>> = [];
  const sockets: Array<WeakRef<WebSocket>> = [];
  const timers = new Set<unknown>();
  w.__pcs = pcs;
  w.__sockets = sockets;
  w.__timers = timers;
  const track = <T extends object>(list: Array<WeakRef<T>>, item: T, done: (item: T) => boolean) => {
    const live = list.filter((ref) => {
      const target = ref.deref();
      return target !== undefined && !done(target);
    });
    list.splice(0, list.length, ...live, new WeakRef(item));
  };
  const NativePc = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePc {
    constructor(config?: RTCConfiguration) {
      super(config);
      track(pcs, this, (pc) => pc.connectionState === 'closed');
    }
  };
  const NativeWs = window.WebSocket;
  window.WebSocket = class extends NativeWs {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      track(sockets, this, (socket) => socket.readyState === NativeWs.CLOSED);
    }
  };
  const set = window.setTimeout.bind(window);
  const clear = window.clearTimeout.bind(window);
  window.setTimeout = ((run: () => void, ms?: number) => {
    const id = set(() => {
      timers.delete(id);
      run();
    }, ms);
    timers.add(id);
    return id;
  }) as typeof window.setTimeout;
  window.clearTimeout = ((id?: number) => {
    timers.delete(id);
    clear(id);
  }) as typeof window.clearTimeout;
  const setEvery = window.setInterval.bind(window);
  const clearEvery = window.clearInterval.bind(window);
  window.setInterval = ((run: () => void, ms?: number) => {
    const id = setEvery(run, ms);
    timers.add(id);
    return id;
  }) as typeof window.setInterval;
  window.clearInterval = ((id?: number) => {
    timers.delete(id);
    clearEvery(id);
  }) as typeof window.clearInterval;
}

/** Opens the demo in a fresh browser (Chromium unless `engine` says), logged in, with the page instrumented; one setup, read top to bottom. */
export async function openBenchPage(demoUrl: string, username: string, engine: Engine = 'chromium'): Promise<BenchPage> {
  const { pages, close } = await openBenchTabs(demoUrl, username, 1, engine);
  return { page: pages[0] as Page, close };
}

/** Runs `measure` in `bench`'s page and closes it whatever happens. */
export async function inPage<T>(bench: BenchPage, measure: (page: Page) => Promise<T>): Promise<T> {
  try {
    return await measure(bench.page);
  } finally {
    await bench.close();
  }
}

/**
 * `count` tabs of one browser, one user, each set up as {@link openBenchPage}'s page: the first opened leads
 * the shared tabs (the library's default).
 */
export async function openBenchTabs(demoUrl: string, username: string, count: number, engine: Engine = 'chromium'): Promise<{ pages: Page[]; open(): Promise<Page>; close(): Promise<void> }> {
  const { context, close } = await launch(engine, demoUrl);
  try {
    return { ...(await setUpTabs(context, demoUrl, username, count)), close };
  } catch (error) {
    // A browser that fails to set up (a login refused, a page that never loads) is closed, not left running.
    await close();
    throw error;
  }
}

/**
 * In a browser context someone else started (the background part's user Chromium), what
 * {@link openBenchTabs} does in its own: the pages instrumented, `username` logged in, `count` tabs (the
 * context's first page, then new ones in front of it) each with the helper; `open()` adds one more, and
 * `prepare(page)` sets up a page that was opened otherwise (in another window).
 */
export async function setUpTabs(context: BrowserContext, demoUrl: string, username: string, count: number): Promise<{ pages: Page[]; open(): Promise<Page>; prepare(page: Page): Promise<void> }> {
  // tsx compiles with esbuild's keepNames, which wraps functions in __name(); functions shipped into the
  // page by evaluate() need it there too.
  await context.addInitScript({ content: 'window.__name = (fn) => fn;' });
  await context.addInitScript(instrument);
  const pages: Page[] = [context.pages()[0] ?? (await context.newPage())];
  const login = await context.request.post(new URL('/auth/login', demoUrl).href, { data: { username } });
  if (login.status() !== 200) throw new Error(`bench: login answered ${login.status()}`);
  while (pages.length < count) pages.push(await context.newPage());
  for (const page of pages) await withHelper(page, demoUrl);
  return {
    pages,
    open: async () => {
      const page = await context.newPage();
      await withHelper(page, demoUrl);
      return page;
    },
    prepare: (page) => withHelper(page, demoUrl),
  };
}

/** A fresh headless browser of `engine` and its one context, whose requests go to `demoUrl`; `close()` ends both. */
async function launch(engine: Engine, demoUrl: string): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (engine === 'firefox') {
    // No `permissions` option: the simulator's Firefox preferences already grant the fake microphone.
    const browser = await firefox.launch({ ...FIREFOX_LAUNCH, headless: true });
    const context = await browser.newContext({ baseURL: demoUrl });
    return { context, close: () => browser.close() };
  }
  const profile = mkdtempSync(join(tmpdir(), 'voice-bench-'));
  const context = await chromium.launchPersistentContext(profile, {
    ...CHROMIUM_LAUNCH,
    headless: true,
    permissions: ['microphone'],
    baseURL: demoUrl,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Loads the script-tag library into `page` and makes its helper `window.voice`, with `window.when()` to time
 * statuses and `window.listen()` to follow every status.
 */
async function withHelper(page: Page, demoUrl: string): Promise<void> {
  await page.goto(new URL('/auth/me', demoUrl).href);
  await page.addScriptTag({ url: '/lib/voice-browser.min.js' });
  await page.evaluate(() => {
    const api = (window as unknown as { VoiceBrowser: typeof import('../lib/index.js') }).VoiceBrowser;
    const listeners = new Set<(s: import('../lib/index.js').VoiceBrowserStatus) => void>();
    const voice = api.createVoiceBrowser({
      backend: api.createFetchBackend({ queues: true }),
      remoteAudio: document.body.appendChild(document.createElement('audio')),
      onStatus: (status) => listeners.forEach((listen) => listen(status)),
    });
    /**
     * Resolves with Date.now() at the first status that satisfies `test`; with `timeoutMs`, rejects after it
     * (naming `what`) and stops listening, so a call that never gets there cannot hang the bench.
     */
    const when = (test: (s: import('../lib/index.js').VoiceBrowserStatus) => boolean, timeoutMs?: number, what = 'the status') =>
      new Promise<number>((resolve, reject) => {
        if (test(voice.status())) return resolve(Date.now());
        let timer: ReturnType<typeof setTimeout> | undefined;
        const listen = (status: import('../lib/index.js').VoiceBrowserStatus) => {
          if (!test(status)) return;
          listeners.delete(listen);
          clearTimeout(timer);
          resolve(Date.now());
        };
        listeners.add(listen);
        if (timeoutMs === undefined) return;
        timer = setTimeout(() => {
          listeners.delete(listen);
          const { connection, busy, call, error } = voice.status();
          reject(new Error(`${what} not reached in ${timeoutMs} ms (${connection}, call ${call?.state ?? 'none'}, busy ${busy}${error ? `, ${error.code}` : ''})`));
        }, timeoutMs);
      });
    /** Calls `listener` with every status from now on. */
    const listen = (listener: (s: import('../lib/index.js').VoiceBrowserStatus) => void) => listeners.add(listener);
    Object.assign(window, { voice, when, listen });
  });
}
