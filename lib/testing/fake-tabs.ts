import type { TabChannel, TabEnvironment, TabMessage } from '../runtime/tab-ports.js';

/**
 * One browser's tabs of one origin, in memory: the Web Locks queue and the BroadcastChannel that shared tabs
 * (`tabs: 'shared'`) meet through. Messages reach every other open tab in the order posted, a microtask later,
 * as a structured clone; a lock goes to the first tab waiting for it when its holder closes or crashes.
 */
export class FakeTabs {
  readonly #tabs = new Set<FakeTab>();
  readonly #locks = new Map<string, LockRequest[]>();

  /** A new tab: hand it to a helper as its tabs (`createTestVoiceBrowser({ tabs })`). */
  open(): FakeTab {
    const tab = new FakeTab(this);
    this.#tabs.add(tab);
    return tab;
  }

  /** The tab holding the lock `name` (the leader), if any. */
  holder(name = 'voice-browser'): FakeTab | undefined {
    return this.#locks.get(name)?.[0]?.tab;
  }

  /** @internal */
  request(entry: LockRequest, name: string): void {
    const queue = this.#locks.get(name) ?? [];
    this.#locks.set(name, queue);
    queue.push(entry);
    if (queue.length === 1) queueMicrotask(entry.granted);
  }

  /** @internal Releases a held lock, or withdraws a request still waiting. */
  release(entry: LockRequest): void {
    this.#withdraw((held) => held === entry);
  }

  /** @internal */
  deliver(sender: FakeTab, name: string, message: TabMessage): void {
    const copy = structuredClone(message);
    queueMicrotask(() => {
      for (const tab of this.#tabs) if (tab !== sender) tab.receive(name, copy);
    });
  }

  /** @internal */
  remove(tab: FakeTab): void {
    this.#tabs.delete(tab);
    this.#withdraw((entry) => entry.tab === tab);
  }

  /** Drops the requests `dropped` picks from every lock's queue; a lock whose holder went goes to the next in line. */
  #withdraw(dropped: (entry: LockRequest) => boolean): void {
    for (const queue of this.#locks.values()) {
      const holder = queue[0];
      queue.splice(0, queue.length, ...queue.filter((entry) => !dropped(entry)));
      if (queue[0] && queue[0] !== holder) queueMicrotask(queue[0].granted);
    }
  }
}

interface LockRequest {
  tab: FakeTab;
  granted: () => void;
}

/** One tab: what a shared helper is given in place of the browser's locks, channel and page. */
export class FakeTab implements TabEnvironment {
  /** Where `pagehide` and `beforeunload` go: `close()` dispatches the first. */
  readonly page = new EventTarget();
  #closed = false;
  readonly #listeners: Array<{ name: string; on: (message: TabMessage) => void }> = [];

  constructor(private readonly tabs: FakeTabs) {}

  get closed(): boolean {
    return this.#closed;
  }

  lead(name: string, granted: () => void): () => void {
    const entry = { tab: this, granted };
    if (!this.#closed) this.tabs.request(entry, name);
    return () => this.tabs.release(entry);
  }

  open(name: string): TabChannel {
    let open = true;
    return {
      post: (message) => {
        if (!this.#closed && open) this.tabs.deliver(this, name, message);
      },
      listen: (on) =>
        this.#listeners.push({
          name,
          on: (message) => {
            if (open) on(message);
          },
        }),
      close: () => {
        open = false;
      },
    };
  }

  /** @internal */
  receive(name: string, message: TabMessage): void {
    if (this.#closed) return;
    for (const listener of this.#listeners) if (listener.name === name) listener.on(structuredClone(message));
  }

  /** The tab is closed: `pagehide`, then its lock goes to the next tab and it hears and says nothing more. */
  close(): void {
    this.page.dispatchEvent(new Event('pagehide'));
    this.crash();
  }

  /** The tab's process dies: no `pagehide`; its lock goes to the next tab. */
  crash(): void {
    this.#closed = true;
    this.tabs.remove(this);
  }
}
