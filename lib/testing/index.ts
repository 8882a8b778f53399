/**
 * `voice-browser/testing`: what an app's unit tests need to drive its phone UI through every state without a
 * server, a microphone or WebRTC. A scripted fake service backend, a fake SIP peer, a fake clock, and
 * {@link createTestVoiceBrowser}, the real helper wired to them. Runs under vitest or jest, in Node with
 * happy-dom or jsdom (the fake clock uses Node's `setImmediate`).
 *
 * @packageDocumentation
 * @module voice-browser/testing
 */

import * as linkParts from '../connect-parts.js';
import type { VoiceBrowser } from '../core/helper-types.js';
import type { VoiceBrowserOptions } from '../core/helper-types.js';
import { createVoiceBrowserWith } from '../voice-browser.js';
import { FakeBackend } from './fake-backend.js';
import { FakeClock } from './fake-clock.js';
import { FakeSip } from './fake-sip.js';
import type { FakeTab } from './fake-tabs.js';

export { FakeBackend, httpError, networkError } from './fake-backend.js';
export type { Gate, Operation, Request as FakeBackendRequest } from './fake-backend.js';
export { FakeClock, flushMicrotasks } from './fake-clock.js';
export { FakeInvite, FakeSip, FakeSipLink } from './fake-sip.js';
export type { FakeSipEvents } from './fake-sip.js';
export { FakeTab, FakeTabs } from './fake-tabs.js';

/** Options of {@link createTestVoiceBrowser}: the helper's own, with the backend made optional. */
export interface TestVoiceBrowserOptions extends Omit<VoiceBrowserOptions, 'backend'> {
  /** The fake service (default: a new one); pass the same one to a second helper to act out a page reload. */
  backend?: FakeBackend;
  /** Where the clock starts, in ms since the epoch (default: 2023-11-14T22:13:20Z). */
  startAt?: number;
  /** The helper's tab among {@link FakeTabs} (`tabs.open()`): with it, tabs are shared; without, each helper stands alone. */
  tab?: FakeTab;
  /** The clock (default: a new one at `startAt`); tabs of one browser may share one. */
  clock?: FakeClock;
}

/** A helper on fakes, and the fakes to drive it with. */
export interface TestVoiceBrowser {
  /** The real helper, exactly as `createVoiceBrowser` makes it, over the fakes below. */
  voice: VoiceBrowser;
  /** The service: script faults (`fail`, `drop`, `hold`), move calls (`setCall`), expire or revoke sessions. */
  backend: FakeBackend;
  /** The SIP peer: deliver INVITEs (`invite`), withdraw them, see what the helper did to its link (`link`). */
  sip: FakeSip;
  /** Time: nothing happens until `await clock.advance(ms)` (polls, expiry, timeouts). */
  clock: FakeClock;
  /** What backend and SIP peer saw, in order, as lines (`backend createCall`, `sip accept call-1`, ...). */
  journal: string[];
}

const DEFAULT_START = 1_700_000_000_000;

/**
 * The real helper over a fake service, SIP peer and clock.
 *
 * @example
 * ```ts
 * import { createTestVoiceBrowser } from 'voice-browser/testing';
 *
 * const { voice, backend, sip, clock } = createTestVoiceBrowser({ onStatus: render });
 * await voice.connect();
 * await voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: 'k1' });
 * sip.invite('call-1');                                   // the service rings the page; the helper answers
 * backend.setCall('call-1', { state: 'connected' });      // the recipient answers
 * await clock.advance(1000);                              // the next read shows it
 * expect(voice.status().call?.state).toBe('connected');
 * ```
 */
export function createTestVoiceBrowser(options: TestVoiceBrowserOptions = {}): TestVoiceBrowser {
  const { backend: given, startAt, tab, clock: givenClock, ...helperOptions } = options;
  const journal: string[] = [];
  const backend = given ?? new FakeBackend(journal);
  const sip = new FakeSip(journal);
  const clock = givenClock ?? new FakeClock(startAt ?? DEFAULT_START);
  const voice = createVoiceBrowserWith({ ...helperOptions, backend }, { clock, sipParts: { ...linkParts, openSipLink: sip.openSipLink }, tabs: tab ?? null });
  return { voice, backend, sip, clock, journal };
}
