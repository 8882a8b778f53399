import { afterEach, beforeEach, expect, vi } from 'vitest';
import { systemClock } from '../../lib/platform/web/system-clock.js';
import { parts as sipAdapter } from '../../lib/connect.js';
import { FakeBackend } from '../../lib/testing/fake-backend.js';
import type { VoiceBrowser } from '../../lib/core/helper-types.js';
import type { Connection } from '../../lib/core/types.js';
import { createVoiceBrowserWith } from '../../lib/voice-browser.js';
import { FakeSipSockets } from './fake-sip-socket.js';

/**
 * The real helper on the real SIP link (sip-adapter.ts over SIP.js) on fake WebSockets that play the registrar
 * (fake-sip-socket.ts). Vitest's fake timers drive SIP.js's own timers and the helper's clock together. Call
 * {@link sipLinkWorld} inside a `describe`: it sets the fakes up before each test and disconnects its phones after.
 */

/** Lets time pass: SIP.js's timers and the helper's fire in order, promises settling between them. */
export const wait = (ms: number) => vi.advanceTimersByTimeAsync(ms);

export interface SipLinkWorld {
  /** The sockets the page opened, and the scripts of the next ones. */
  readonly sockets: FakeSipSockets;
  /** `Date.now()` when the test began. */
  readonly started: number;
  /**
   * A helper, each connection state it shows recorded with its time since the test began; its session expires
   * at `sessionExpiresAt` (the fake backend's far future by default).
   */
  phone(sessionExpiresAt?: string): { voice: VoiceBrowser; states: Array<[number, Connection]> };
  /** A phone connected and registered on its first socket. */
  ready(): Promise<{ voice: VoiceBrowser; states: Array<[number, Connection]> }>;
}

export function sipLinkWorld(): SipLinkWorld {
  let sockets: FakeSipSockets;
  let started: number;
  /** The helpers of the test, disconnected after it: a link listens on the window until it is closed. */
  let phones: VoiceBrowser[];

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    started = Date.now();
    sockets = new FakeSipSockets();
    phones = [];
    vi.stubGlobal('WebSocket', sockets.WebSocket);
    // SIP.js reports each lost socket on the console; the states are what the tests look at.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    const closed = Promise.all(phones.map((voice) => voice.disconnect().catch(() => undefined)));
    await wait(60_000);
    await closed;
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  function phone(sessionExpiresAt?: string) {
    const states: Array<[number, Connection]> = [];
    const backend = new FakeBackend();
    if (sessionExpiresAt) backend.sessionExpiresAt = sessionExpiresAt;
    const voice = createVoiceBrowserWith(
      {
        backend,
        onStatus: ({ connection }) => {
          if (states.at(-1)?.[1] !== connection) states.push([Date.now() - started, connection]);
        },
      },
      { clock: systemClock, sipParts: sipAdapter, tabs: null },
    );
    phones.push(voice);
    return { voice, states };
  }

  return {
    get sockets() {
      return sockets;
    },
    get started() {
      return started;
    },
    phone,
    async ready() {
      const made = phone();
      const connecting = made.voice.connect();
      await wait(0);
      await connecting;
      expect(made.voice.status().connection).toBe('ready');
      return made;
    },
  };
}
