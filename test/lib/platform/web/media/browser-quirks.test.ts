// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { createMediaControls } from '../../../../../lib/platform/web/media/media-controls.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';
import { CALL, setup } from '../../../../support/helper-world.js';
import type { FakeSipSockets } from '../../../../support/fake-sip-socket.js';
import { sipLinkWorld, wait } from '../../../../support/sip-link-world.js';

/**
 * What docs/browsers.md says the library does about Safari's ways, held to the code. Safari cannot run on this
 * machine, so each case is acted out by a fake that behaves as Safari does:
 *
 * - Its SIP WebSocket: the real SIP link on a fake `WebSocket` (test/support/sip-link-world.ts) that closes 1006
 *   where Safari's socket does: at once, after the device slept or the network changed.
 * - Its autoplay policy: an audio element that plays only inside a click, as WebKit's does.
 */

describe('Safari: a SIP WebSocket closed 1006 at once (device asleep, network changed)', () => {
  const world = sipLinkWorld();
  const { phone, ready } = world;
  let sockets: FakeSipSockets;
  beforeEach(() => (sockets = world.sockets));

  /** When each socket after the first was made, in ms since the first socket dropped at `droppedAt`. */
  const retriesSince = (droppedAt: number) => sockets.opened.slice(1).map((socket) => socket.madeAt - droppedAt);

  /** The waits between attempts each lie between half and all of a bound that doubles from 1 s (RFC 5626 section 4.5). */
  const expectBackoff = (retries: number[]) =>
    retries.slice(1).forEach((at, index) => {
      const bound = Math.min(30_000, 1000 * 2 ** index);
      expect(at - retries[index]!, `wait ${index + 1}`).toBeGreaterThanOrEqual(bound / 2);
      expect(at - retries[index]!, `wait ${index + 1}`).toBeLessThanOrEqual(bound);
    });

  it('shows reconnecting, retries at once, then after randomized waits that double, and never gives up: ready once a socket opens', async () => {
    const { voice, states } = await ready();
    sockets.next('refuse', 'refuse', 'refuse', 'refuse', 'refuse');
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(10 * 60_000);

    const retries = retriesSince(droppedAt);
    expect(retries).toHaveLength(6);
    expect(retries[0]).toBe(0);
    expectBackoff(retries);
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
    expect(voice.status().error).toBeNull();
  });

  it('fails an attempt whose socket closes under its REGISTER at once, not after SIP.js waits 32 s for the answer', async () => {
    const { voice, states } = await ready();
    sockets.next('drop-on-register', 'serve');
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(1000);

    const retries = retriesSince(droppedAt);
    expect(retries).toHaveLength(2);
    expectBackoff(retries);
    expect(voice.status()).toMatchObject({ connection: 'ready', error: null });
    expect(states.at(-1)).toEqual([droppedAt - world.started + retries[1]!, 'ready']);
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

  it('retries a socket that registers and is closed again at once ever more slowly, never in a loop, and never shows offline', async () => {
    const { voice } = await ready();
    sockets.next(...Array<'drop-after-register'>(40).fill('drop-after-register'));
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(60_000);

    const retries = retriesSince(droppedAt);
    expect(retries.length).toBeLessThan(12);
    expect(retries.at(-1)! - retries.at(-2)!).toBeGreaterThan(retries[2]! - retries[1]!);
    expect(voice.status().connection).toBe('reconnecting');
  });

  it('gives a link that stayed up after its restore a fresh start at its next drop: at once, then the shortest wait', async () => {
    const { voice } = await ready();
    sockets.next('refuse', 'refuse', 'serve');
    sockets.last.drop();
    await wait(1000 + 2000);
    expect(voice.status().connection).toBe('ready');

    await wait(10_000);
    sockets.next('refuse', 'serve');
    const droppedAt = Date.now();
    sockets.last.drop();
    await wait(1000);
    const retries = retriesSince(droppedAt).slice(-2);
    expect(retries[0]).toBe(0);
    expectBackoff(retries);
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

    expect(retriesSince(droppedAt)).toEqual([0, 500]);
    expect(voice.status().connection).toBe('ready');
  });

  it('finds a socket that died silently under a network change within 1.5 s of `online`, and restores it', async () => {
    const { voice, states } = await ready();
    sockets.last.stall();
    await wait(1000);
    const onlineAt = Date.now();
    window.dispatchEvent(new Event('online'));
    await wait(1500);

    // The probe's ping went unanswered for 1.5 s: the socket is given up without waiting on its closing handshake.
    expect(sockets.opened).toHaveLength(2);
    expect(sockets.opened[1]!.madeAt - onlineAt).toBe(1500);
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
    const { voice, sip, backend } = setup();
    await voice.connect();
    await voice.startCall(CALL, { idempotencyKey: 'key-1' });
    sip.invite('call-1');
    backend.setCall('call-1', { state: 'connected' });
    sip.events.onMediaConnected('call-1');
    sip.events.onAudio('blocked');
    expect(voice.status()).toMatchObject({ audio: 'blocked', error: { code: 'audio_playback_blocked' } });

    const resumed = voice.resumeAudio();
    // Before any await: the link's resume (and so play()) runs in the click's own turn.
    expect(sip.link.resumed).toBe(1);
    await resumed;
    expect(voice.status()).toMatchObject({ audio: 'playing', error: null });
  });
});
