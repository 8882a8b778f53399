import type { LeaderMethod } from '../core/helper-methods.js';
import type { PreflightReport, VoiceBrowser } from '../core/helper-types.js';
import type { BrowserCall, TimingEvent, VoiceBrowserStatus } from '../core/types.js';

/**
 * What the tabs of one origin share, as types: a lock that elects the tab holding the phone and a channel that
 * carries its status and the others' method calls. The browser's own (Web Locks, BroadcastChannel) is in the web
 * platform; tests hand in fakes (`voice-browser/testing`).
 */

/** A helper before createVoiceBrowser gives it watchQueues(), which every tab runs for itself. */
export type Phone = Omit<VoiceBrowser, 'watchQueues'>;

/** The methods a tab that does not hold the phone runs in the one that does. */
export type TabMethod = LeaderMethod;

/** A method's answer, as the channel carries it: a value, or the coded error it failed with. */
export type TabAnswer = { value: BrowserCall | PreflightReport | VoiceBrowserStatus | undefined } | { error: { code: string; message: string; status?: number; retryAfterMs?: number } };

/** What tabs say to each other. Each names its sender (`from`); a call and its answer name the one tab meant (`to`). */
export type TabMessage =
  | { kind: 'hello'; from: string }
  | { kind: 'status'; from: string; status: VoiceBrowserStatus }
  | { kind: 'timing'; from: string; event: TimingEvent }
  | { kind: 'bye'; from: string }
  | { kind: 'call'; from: string; to: string; id: number; method: TabMethod; args: unknown[] }
  | ({ kind: 'answer'; from: string; to: string; id: number } & TabAnswer);

export interface TabChannel {
  post(message: TabMessage): void;
  listen(on: (message: TabMessage) => void): void;
  close(): void;
}

export interface TabEnvironment {
  /**
   * Runs `granted` once this tab holds the exclusive lock `name`, which it keeps until the page goes or it calls
   * the function returned (which also withdraws a request still waiting).
   */
  lead(name: string, granted: () => void): () => void;
  /** The channel of `name`: what one tab posts, every other tab of the origin hears. */
  open(name: string): TabChannel;
  /** The page, whose `pagehide` and `beforeunload` the phone's tab listens to. */
  page?: EventTarget;
}
