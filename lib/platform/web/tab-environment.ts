import type { TabChannel, TabEnvironment, TabMessage } from '../../runtime/tab-ports.js';

/**
 * What the tabs of one origin share (the shared tabs' ports): a lock that elects the tab holding the phone (Web Locks)
 * and a channel that carries its status and the others' method calls (BroadcastChannel). The only file that
 * touches either; tests hand in fakes (`voice-browser/testing`).
 */

/** The browser's tabs, or undefined where Web Locks or BroadcastChannel are missing (each tab then stands alone). */
export function browserTabs(): TabEnvironment | undefined {
  const locks = globalThis.navigator?.locks;
  if (!locks || typeof BroadcastChannel !== 'function') return undefined;
  return {
    lead(name, granted) {
      const waiting = new AbortController();
      let release = () => waiting.abort();
      // Held while the page lives (the browser releases it when the page closes or crashes), or until released.
      locks
        .request(name, { signal: waiting.signal }, () => {
          granted();
          return new Promise<void>((resolve) => (release = resolve));
        })
        .catch(() => undefined);
      return () => release();
    },
    open(name) {
      const channel = new BroadcastChannel(name);
      return {
        post: (message) => channel.postMessage(message),
        listen: (on) => channel.addEventListener('message', (event) => on(event.data as TabMessage)),
        close: () => channel.close(),
      };
    },
    page: globalThis,
  };
}
