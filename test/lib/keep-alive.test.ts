import { describe, expect, it } from 'vitest';
import { createKeepAlive, DEAD_AFTER_MS, PING_EVERY_MS, PROBE_WAIT_MS } from '../../lib/keep-alive.js';
import { FakeClock } from '../../lib/testing/fake-clock.js';

/** The SIP socket's watchdog (lib/keep-alive.ts), on a fake clock. */

function watched() {
  const clock = new FakeClock(0);
  const seen: string[] = [];
  const keepAlive = createKeepAlive({ clock, ping: () => void seen.push(`ping@${clock.now()}`), onDead: () => void seen.push(`dead@${clock.now()}`) });
  return { clock, seen, keepAlive };
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

  it('declares a socket that went silent dead within 15 s of its last word, once', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.start();
    await clock.advance(PING_EVERY_MS);
    keepAlive.heard();
    const lastWord = clock.now();
    await clock.advance(60_000);
    const dead = seen.filter((line) => line.startsWith('dead'));
    expect(dead).toHaveLength(1);
    const at = Number(dead[0]?.split('@')[1]);
    expect(at - lastWord).toBeGreaterThanOrEqual(DEAD_AFTER_MS);
    expect(at - lastWord).toBeLessThanOrEqual(15_000);
    expect(clock.pendingTimers).toBe(0);
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

describe('the keep-alive after a change of network', () => {
  it('declares a silent socket dead exactly 12 s after its last word, not at the next ping', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.start();
    await clock.advance(3000);
    keepAlive.heard();
    await clock.advance(60_000);
    expect(seen.filter((line) => line.startsWith('dead'))).toEqual([`dead@${3000 + DEAD_AFTER_MS}`]);
  });

  it('probes at once when the browser is back online: dead 3 s later unless the socket answers', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.start();
    await clock.advance(1000);
    keepAlive.probe();
    expect(seen).toEqual(['ping@1000']);
    await clock.advance(PROBE_WAIT_MS);
    expect(seen).toEqual(['ping@1000', `dead@${1000 + PROBE_WAIT_MS}`]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps a socket that answers the probe, pinging on as before', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.start();
    await clock.advance(1000);
    keepAlive.probe();
    await clock.advance(50);
    keepAlive.heard(); // the pong
    await clock.advance(PING_EVERY_MS * 2);
    keepAlive.heard();
    await clock.advance(PING_EVERY_MS);
    expect(seen).toEqual(['ping@1000', 'ping@6000', 'ping@11000', 'ping@16000']);
  });

  it('does nothing on a probe while stopped (no socket to ask)', async () => {
    const { clock, seen, keepAlive } = watched();
    keepAlive.probe();
    await clock.advance(60_000);
    expect(seen).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });
});
