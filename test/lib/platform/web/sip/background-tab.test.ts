// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeSipSockets } from '../../../../support/fake-sip-socket.js';
import { sipLinkWorld, wait } from '../../../../support/sip-link-world.js';

/**
 * An agent's phone tab behind the CRM for hours: the real SIP link on fake sockets, in a page whose
 * timers the browser runs late (Chromium runs a hidden page's chained timers once a minute), that it freezes and
 * resumes, hides and shows. What the browser itself does is proven in e2e/background-tab.spec.ts; this file holds
 * the link's logic to it, minute by minute.
 */

/** The registration the fake registrar grants (SIP.js asks for the session's; the registrar echoes it). */
const EXPIRES_MS = 600_000;

/**
 * From here on, every timer of the page (SIP.js's and the helper's) fires at the next whole minute at the earliest,
 * as a hidden Chromium page's do after its grace; network events still come at once.
 */
function throttleTimers(): void {
  const setTimer = globalThis.setTimeout;
  vi.stubGlobal('setTimeout', (run: () => void, ms = 0) => setTimer(run, Math.ceil((Date.now() + ms) / 60_000) * 60_000 - Date.now()));
}

/** The page's lifecycle events, fired where the browser fires them. */
const lifecycle = (name: 'resume' | 'visibilitychange') => document.dispatchEvent(new Event(name));

describe('a hidden page, whose timers run once a minute', () => {
  const world = sipLinkWorld();
  let sockets: FakeSipSockets;
  beforeEach(() => (sockets = world.sockets));

  it('stays ready on its one socket for an hour, registered the whole time', async () => {
    const { states } = await world.ready();
    throttleTimers();
    await wait(60 * 60_000);

    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready']);
    expect(sockets.opened).toHaveLength(1);
    // Each refresh came well before the last registration ran out, a minute-late timer included.
    const registers = sockets.last.registers;
    expect(registers.length).toBeGreaterThanOrEqual(12);
    const gaps = registers.slice(1).map((at, i) => at - registers[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(EXPIRES_MS - 2 * 60_000);
  });

  it('finds a socket that died silently at a later wake-up, and reconnects and registers in that same wake-up', async () => {
    const { voice, states } = await world.ready();
    throttleTimers();
    await wait(3 * 60_000);
    sockets.last.stall();
    await wait(5 * 60_000);

    expect(sockets.opened).toHaveLength(2);
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
    const [droppedAt, restoredAt] = states.slice(2).map(([at]) => at) as [number, number];
    // A last chance sent at one wake-up, judged at the next: found within three of them, never on a tick's delay.
    expect((world.started + droppedAt) % 60_000).toBe(0);
    expect(droppedAt).toBeLessThanOrEqual(3 * 60_000 + 3 * 60_000);
    expect(restoredAt).toBe(droppedAt);
    expect(sockets.last.registers).toEqual([world.started + restoredAt]);
    expect(voice.status().connection).toBe('ready');
  });
});

describe('a page the browser freezes and resumes, hides and shows', () => {
  const world = sipLinkWorld();
  let sockets: FakeSipSockets;
  beforeEach(() => (sockets = world.sockets));

  it('asks at once on resume whether its socket lived through the freeze: a live one is kept', async () => {
    const { states } = await world.ready();
    const pings = () => sockets.last.sent.filter((data) => data === '\r\n\r\n').length;
    await wait(1000);
    const before = pings();
    lifecycle('resume');
    expect(pings()).toBe(before + 1);
    await wait(10_000);
    expect(sockets.opened).toHaveLength(1);
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready']);
  });

  it('shows a socket that died meanwhile as reconnecting within 1.5 s of resume, and ready again on a new one', async () => {
    const { voice, states } = await world.ready();
    sockets.last.stall();
    // Frozen a minute: the clock moves on, no timer runs.
    vi.setSystemTime(Date.now() + 60_000);
    const resumedAt = Date.now() - world.started;
    lifecycle('resume');
    await wait(1500);

    expect(states.slice(2)).toEqual([
      [resumedAt + 1500, 'reconnecting'],
      [resumedAt + 1500, 'ready'],
    ]);
    expect(sockets.opened).toHaveLength(2);
    expect(voice.status().connection).toBe('ready');
  });

  it('probes the socket when the page is shown, and makes a waiting reconnection attempt at once', async () => {
    const { states } = await world.ready();
    sockets.last.stall();
    const shownAt = Date.now() - world.started;
    lifecycle('visibilitychange');
    await wait(1500);
    expect(states.slice(2, 3)).toEqual([[shownAt + 1500, 'reconnecting']]);

    // Settled, the socket drops again; the attempt at once is refused, the next would wait a second, and goes
    // when the page is shown.
    await wait(10_000);
    sockets.next('refuse');
    sockets.last.drop();
    await wait(100);
    lifecycle('visibilitychange');
    await wait(0);
    expect(states.at(-1)?.[1]).toBe('ready');
  });

  it('tries a refresh the registrar could not take again within a second, and stays ready', async () => {
    const { voice, states } = await world.ready();
    sockets.last.refusals.push(503);
    await wait(EXPIRES_MS / 2 + 1000);

    const [refused, again] = sockets.last.registers.slice(1).map((at) => at - world.started);
    expect(refused).toBe(EXPIRES_MS / 2);
    expect(again! - refused!).toBeGreaterThanOrEqual(500);
    expect(again! - refused!).toBeLessThanOrEqual(1000);
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready']);
    expect(voice.status().error).toBeNull();
  });

  it('takes no calls once the registrar refuses a refresh the credentials: expired, browser_session_unavailable', async () => {
    const { voice } = await world.ready();
    sockets.last.refusals.push(403);
    await wait(EXPIRES_MS / 2);

    expect(voice.status()).toMatchObject({ connection: 'expired', error: { code: 'browser_session_unavailable' } });
    await wait(EXPIRES_MS);
    expect(sockets.last.registers).toHaveLength(2);
  });
});
