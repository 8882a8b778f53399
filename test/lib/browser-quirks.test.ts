// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../lib/clock.js';
import { createMediaControls } from '../../lib/media-controls.js';
import * as sipAdapter from '../../lib/sip-adapter.js';
import { FakeBackend } from '../../lib/testing/fake-backend.js';
import { FakeClock } from '../../lib/testing/fake-clock.js';
import type { Connection, VoiceBrowser } from '../../lib/types.js';
import { createVoiceBrowserWith } from '../../lib/voice-browser.js';
import { setup } from '../support/helper-world.js';
import { FakeSipSockets } from '../support/fake-sip-socket.js';

/**
 * What docs/browsers.md says the library does about Safari's ways, held to the code. Safari cannot run on this
 * machine, so each case is acted out by a fake that behaves as Safari does:
 *
 * - Its SIP WebSocket: the real SIP link (sip-adapter.ts over SIP.js) on a fake `WebSocket` that plays the
 *   registrar (test/support/fake-sip-socket.ts) and closes 1006 where Safari's socket does: at once, after the
 *   device slept or the network changed. Vitest's fake timers drive SIP.js's own timers and the helper's clock
 *   together.
 * - Its autoplay policy: an audio element that plays only inside a click, as WebKit's does.
 */

/** Lets time pass: SIP.js's timers and the helper's fire in order, promises settling between them. */
const wait = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('Safari: a SIP WebSocket closed 1006 at once (device asleep, network changed)', () => {
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
    // SIP.js reports each lost socket on the console; the states below are what this file looks at.
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

  /** The real helper on the real SIP link, recording each connection state with its time since the test began. */
  function phone() {
    const states: Array<[number, Connection]> = [];
    const voice = createVoiceBrowserWith(
      {
        backend: new FakeBackend(),
        onStatus: ({ connection }) => {
          if (states.at(-1)?.[1] !== connection) states.push([Date.now() - started, connection]);
        },
      },
      { clock: systemClock, sipParts: sipAdapter, tabs: null },
    );
    phones.push(voice);
    return { voice, states };
  }

  /** A phone connected and registered on its first socket. */
  async function ready() {
    const made = phone();
    const connecting = made.voice.connect();
    await wait(0);
    await connecting;
    expect(made.voice.status().connection).toBe('ready');
    return made;
  }

  /** When each socket after the first was made, in ms since the first socket dropped at `droppedAt`. */
  const retriesSince = (droppedAt: number) => sockets.opened.slice(1).map((socket) => socket.madeAt - droppedAt);

  it('shows reconnecting, retries 250 ms, 1 s and 3 s apart, then stays offline: four sockets in all, never a loop', async () => {
    const { voice, states } = await ready();
    sockets.next('refuse', 'refuse', 'refuse');
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(10 * 60_000);

    expect(retriesSince(droppedAt)).toEqual([250, 1250, 4250]);
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready', 'reconnecting', 'offline']);
    expect(voice.status().error).toMatchObject({ code: 'connection_failed' });
  });

  it('fails an attempt whose socket closes under its REGISTER at once, not after SIP.js waits 32 s for the answer', async () => {
    const { voice, states } = await ready();
    sockets.next('drop-on-register', 'serve');
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(1250);

    expect(retriesSince(droppedAt)).toEqual([250, 1250]);
    expect(voice.status()).toMatchObject({ connection: 'ready', error: null });
    expect(states.at(-1)).toEqual([droppedAt - started + 1250, 'ready']);
  });

  it('rejects connect() connection_failed at once when the socket closes before its REGISTER is answered, with no second socket', async () => {
    const { voice, states } = phone();
    sockets.next('drop-on-register');
    const outcome = voice.connect().then(
      () => 'ready',
      (error: { code: string }) => error.code,
    );
    await wait(0);

    expect(await outcome).toBe('connection_failed');
    await wait(60_000);
    expect(sockets.opened).toHaveLength(1);
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'disconnected']);
  });

  it('spends one budget of three attempts on a socket that registers and is closed again at once: offline in seconds, not restored for ever', async () => {
    const { voice } = await ready();
    sockets.next(...Array<'drop-after-register'>(20).fill('drop-after-register'));
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(60_000);

    expect(retriesSince(droppedAt)).toEqual([250, 1250, 4250]);
    expect(voice.status()).toMatchObject({ connection: 'offline', error: { code: 'connection_failed' } });
  });

  it('gives a link that stayed up after its restore three fresh attempts at its next drop', async () => {
    const { voice } = await ready();
    sockets.next('refuse', 'refuse', 'serve');
    sockets.last.drop();
    await wait(1250 + 3000);
    expect(voice.status().connection).toBe('ready');

    await wait(10_000);
    sockets.next('refuse', 'refuse', 'serve');
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(4250);
    expect(retriesSince(droppedAt).slice(-3)).toEqual([250, 1250, 4250]);
    expect(voice.status().connection).toBe('ready');
  });

  it('makes the next attempt at once when the browser says it is back online, instead of waiting its turn', async () => {
    const { voice } = await ready();
    sockets.next('refuse', 'serve');
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(500);
    window.dispatchEvent(new Event('online'));
    await wait(0);

    expect(retriesSince(droppedAt)).toEqual([250, 500]);
    expect(voice.status().connection).toBe('ready');
  });

  it('finds a socket that died silently under a network change within 3 s of `online`, and restores it', async () => {
    const { voice, states } = await ready();
    sockets.last.stall();
    await wait(1000);
    const onlineAt = Date.now();
    window.dispatchEvent(new Event('online'));
    await wait(3000 + 250);

    // The probe's ping went unanswered for 3 s: the socket is given up without waiting on its closing handshake.
    expect(sockets.opened).toHaveLength(2);
    expect(sockets.opened[1]!.madeAt - onlineAt).toBe(3250);
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
    expect(voice.status().connection).toBe('ready');
  });

  it('closes an idle socket as the page enters the back/forward cache and reconnects as it comes back', async () => {
    const { voice, states } = await ready();
    window.dispatchEvent(Object.assign(new Event('pagehide'), { persisted: true }));
    await wait(0);
    expect(sockets.last.readyState).toBe(WebSocket.CLOSED);
    expect(voice.status().connection).toBe('reconnecting');

    await wait(60_000);
    window.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
    await wait(250);
    expect(sockets.opened).toHaveLength(2);
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
  });
});

describe('Safari: call audio plays only after a user gesture (autoplay policy)', () => {
  /** An audio element as WebKit's: play() is refused (NotAllowedError) unless a click is being handled. */
  function webkitAudio() {
    let clicking = false;
    const element = {
      srcObject: null as unknown,
      play: () => (clicking ? Promise.resolve() : Promise.reject(new DOMException('The request is not allowed by the user agent', 'NotAllowedError'))),
    };
    /** Runs `handler` as a click's listener: the gesture lasts exactly as long as the handler's own turn. */
    const click = <T>(handler: () => T): T => {
      clicking = true;
      try {
        return handler();
      } finally {
        clicking = false;
      }
    };
    return { element: element as unknown as HTMLAudioElement, click };
  }

  it("shows the call audio blocked when it starts outside a gesture, and plays it when resumeAudio() runs in the click", async () => {
    const audio = webkitAudio();
    const shown: string[] = [];
    const media = createMediaControls({
      peerConnection: () => undefined,
      sendInfo: () => Promise.resolve(),
      remoteAudio: audio.element,
      speakerId: undefined,
      onAudio: (state) => shown.push(state),
      clock: new FakeClock(),
    });

    await media.play(new MediaStream());
    expect(shown).toEqual(['blocked']);
    // A resume that waits for anything before play() has lost the gesture: this one reaches play() at once.
    await audio.click(() => media.resumeAudio());
    expect(shown).toEqual(['blocked', 'playing']);
  });

  it('keeps audio_playback_blocked in the status until the click, and hands resumeAudio() to the link within the click itself', async () => {
    const { voice, sip } = setup();
    await voice.connect();
    sip.events.onAudio('blocked');
    expect(voice.status()).toMatchObject({ audio: 'blocked', error: { code: 'audio_playback_blocked' } });

    const resumed = voice.resumeAudio();
    // Before any await: the link's resume (and so play()) runs in the click's own turn.
    expect(sip.link.resumed).toBe(1);
    await resumed;
    expect(voice.status()).toMatchObject({ audio: 'playing', error: null });
  });
});
