import { describe, expect, it } from 'vitest';
import { ANSWER_WAIT_MS, createKeepAlive, PING_EVERY_MS, QUERY_EVERY_MS, QUERY_WAIT_MS } from '../../../../../lib/platform/web/sip/keep-alive.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';

/** The SIP socket's watchdog (lib/platform/web/sip/keep-alive.ts), on a fake clock. */

/** A watchdog on a fake clock, its pings and death in `seen`; while `socket.answers`, each ping is answered at once. */
function watched() {
  const clock = new FakeClock(0);
  const seen: string[] = [];
  const socket = { answers: false };
  const keepAlive = createKeepAlive({
    clock,
    ping: () => {
      seen.push(`ping@${clock.now()}`);
      if (socket.answers) queueMicrotask(() => keepAlive.heard());
    },
    onDead: () => void seen.push(`dead@${clock.now()}`),
  });
  return { clock, seen, keepAlive, socket };
}

describe('the keep-alive', () => {
  it('pings every 5 s while the socket answers, and never declares it dead', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.start();
    for (let i = 0; i < 6; i++) {
      await clock.advance(PING_EVERY_MS);
      keepAlive.heard();
    }
    expect(seen).toEqual([5000, 10000, 15000, 20000, 25000, 30000].map((at) => `ping@${at}`));
  });

  it('declares a socket that went silent dead once: a ping unanswered, then a last chance unanswered 1.5 s', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.start();
    await clock.advance(PING_EVERY_MS);
    keepAlive.heard();
    await clock.advance(60_000);
    expect(seen).toEqual(['ping@5000', 'ping@10000', 'ping@15000', `dead@${15000 + ANSWER_WAIT_MS}`]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('takes an answer to the last chance as life, and pings on every 5 s', async () => {
    const { clock, seen, keepAlive, socket } = watched();
    keepAlive.start();
    await clock.advance(PING_EVERY_MS * 2 + ANSWER_WAIT_MS - 1);
    keepAlive.heard(); // the last chance's pong, late
    socket.answers = true;
    await clock.advance(PING_EVERY_MS * 2);
    expect(seen).toEqual(['ping@5000', 'ping@10000', 'ping@11500', 'ping@16500']);
  });

  it('leaves no timer once stopped, and starts afresh (a reconnected socket has just spoken)', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.start();
    await clock.advance(11_000);
    keepAlive.stop();
    expect(clock.pendingTimers).toBe(0);
    keepAlive.start();
    await clock.advance(PING_EVERY_MS * 2);
    expect(seen.filter((line) => line.startsWith('dead'))).toEqual([]);
  });
});

describe('the keep-alive of a hidden page, whose timers run once a minute', () => {
  /** A watchdog whose every timer is due at the next whole minute at the earliest, its pings and death in `seen`. */
  function watchedLate() {
    const seen: string[] = [];
    const clock = new FakeClock(0);
    const late = { now: () => clock.now(), setTimeout: (run: () => void, ms: number) => clock.setTimeout(run, Math.ceil((clock.now() + ms) / 60_000) * 60_000 - clock.now()), clearTimeout: (handle: unknown) => clock.clearTimeout(handle) };
    const keepAlive = createKeepAlive({ clock: late, ping: () => void seen.push(`ping@${clock.now()}`), onDead: () => void seen.push(`dead@${clock.now()}`) });
    return { clock, seen, keepAlive };
  }

  /** A tick of the watchdog runs a minute late, as Chromium runs a hidden page's chained timers. */
  async function throttledMinute(clock: FakeClock, answered: boolean, keepAlive: { heard(): void }) {
    for (let second = 0; second < 60; second++) {
      await clock.advance(1000);
      // The pong is a network event, which no throttling delays: it comes right after its ping.
      if (answered) keepAlive.heard();
    }
  }

  it('never declares a socket that answered every ping dead, however late its ticks run', async () => {
    const { clock, seen, keepAlive } = watchedLate();
    keepAlive.start();
    for (let minute = 0; minute < 10; minute++) await throttledMinute(clock, true, keepAlive);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, minute) => `ping@${(minute + 1) * 60_000}`));
  });

  it('still finds a socket that died, at a later wake-up: a last chance sent at one, judged at the next', async () => {
    const { clock, seen, keepAlive } = watchedLate();
    keepAlive.start();
    await throttledMinute(clock, true, keepAlive);
    for (let minute = 0; minute < 4; minute++) await throttledMinute(clock, false, keepAlive);
    expect(seen).toEqual(['ping@60000', 'ping@120000', 'ping@180000', 'dead@240000']);
  });

  it('asks at once when the page resumes: the overdue tick of a frozen page judges nothing', async () => {
    const { clock, seen, keepAlive, socket } = watched();
    socket.answers = true;
    keepAlive.start();
    keepAlive.probe(); // resume, before the tick due at 5 s
    await clock.advance(PING_EVERY_MS * 2);
    expect(seen).toEqual([0, 1500, 6500].map((at) => `ping@${at}`));
  });
});

describe('the keep-alive after a change of network', () => {
  it('probes at once when the page is back (online, shown, resumed): dead 1.5 s later unless the socket answers', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.start();
    await clock.advance(1000);
    keepAlive.probe();
    expect(seen).toEqual(['ping@1000']);
    await clock.advance(ANSWER_WAIT_MS);
    expect(seen).toEqual(['ping@1000', `dead@${1000 + ANSWER_WAIT_MS}`]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps a socket that answers the probe, pinging on as before', async () => {
    const { clock, seen, keepAlive, socket } = watched();
    socket.answers = true;
    keepAlive.start();
    await clock.advance(1000);
    keepAlive.probe();
    await clock.advance(PING_EVERY_MS * 3);
    expect(seen).toEqual([1000, 2500, 7500, 12500].map((at) => `ping@${at}`));
  });

  it('does nothing on a probe while stopped (no socket to ask)', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.probe();
    await clock.advance(60_000);
    expect(seen).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('the keep-alive with an edge that confirmed no outbound', () => {
  it('asks with an OPTIONS every 25 s instead of pinging, and declares the socket dead only once a query and its last chance went unanswered', async () => {
    const clock = new FakeClock(0);
    const seen: string[] = [];
    const keepAlive = createKeepAlive({ clock, ping: (question) => void seen.push(`${question}@${clock.now()}`), onDead: () => void seen.push(`dead@${clock.now()}`) });
    keepAlive.start(false);
    await clock.advance(QUERY_EVERY_MS);
    keepAlive.heard();
    await clock.advance(5 * 60_000);
    expect(seen).toEqual([`query@${QUERY_EVERY_MS}`, `query@${2 * QUERY_EVERY_MS}`, `query@${3 * QUERY_EVERY_MS}`, `dead@${3 * QUERY_EVERY_MS + QUERY_WAIT_MS}`]);
  });
});
