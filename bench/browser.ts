import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium.js';

/**
 * A Chromium page for the benchmark: Debian's Chromium with the e2e flags (loopback only, fake media), logged
 * in to the demo server, with the script-tag library loaded and the page's peer connections, timers and
 * WebSockets counted so leaks can be seen.
 */

export interface BenchPage {
  page: Page;
  close(): Promise<void>;
}

/**
 * Runs in the page before anything else: counts what could leak. Weak references, so that the counting
 * itself keeps nothing alive for the heap figure.
 */
function instrument(): void {
  const w = window as unknown as Record<string, unknown>;
  const pcs: Array<WeakRef<RTCPeerConnection>> = [];
  const sockets: Array<WeakRef<WebSocket>> = [];
  const timers = new Set<unknown>();
  w.__pcs = pcs;
  w.__sockets = sockets;
  w.__timers = timers;
  const NativePc = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePc {
    constructor(config?: RTCConfiguration) {
      super(config);
      pcs.push(new WeakRef(this));
    }
  };
  const NativeWs = window.WebSocket;
  window.WebSocket = class extends NativeWs {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      sockets.push(new WeakRef(this));
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
}

export async function openBenchPage(demoUrl: string, username: string): Promise<BenchPage> {
  const profile = mkdtempSync(join(tmpdir(), 'voice-bench-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    permissions: ['microphone'],
    baseURL: demoUrl,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // tsx compiles with esbuild's keepNames, which wraps functions in __name(); functions shipped into the
  // page by evaluate() need it there too.
  await page.addInitScript({ content: 'window.__name = (fn) => fn;' });
  await page.addInitScript(instrument);
  const login = await page.request.post('/auth/login', { data: { username } });
  if (login.status() !== 200) throw new Error(`bench: login answered ${login.status()}`);
  await page.goto('/auth/me');
  await page.addScriptTag({ url: '/lib/voice-browser.min.js' });
  await page.evaluate(() => {
    const api = (window as unknown as { VoiceBrowser: typeof import('../lib/index.js') }).VoiceBrowser;
    const listeners = new Set<(s: import('../lib/index.js').VoiceBrowserStatus) => void>();
    const voice = api.createVoiceBrowser({
      backend: api.createFetchBackend(),
      remoteAudio: document.body.appendChild(document.createElement('audio')),
      onStatus: (status) => listeners.forEach((listen) => listen(status)),
    });
    /** Resolves with Date.now() at the first status that satisfies `test`. */
    const when = (test: (s: import('../lib/index.js').VoiceBrowserStatus) => boolean) =>
      new Promise<number>((resolve) => {
        if (test(voice.status())) return resolve(Date.now());
        const listen = (status: import('../lib/index.js').VoiceBrowserStatus) => {
          if (!test(status)) return;
          listeners.delete(listen);
          resolve(Date.now());
        };
        listeners.add(listen);
      });
    Object.assign(window, { voice, when });
  });
  return {
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
