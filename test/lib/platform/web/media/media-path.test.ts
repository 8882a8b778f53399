import { describe, expect, it } from 'vitest';
import { MAX_RESTARTS, RESTART_WAIT_MS, SAMPLE_MS, SILENT_DOWN_MS, watchMediaPath, type PathSample } from '../../../../../lib/platform/web/media/media-path.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';

/**
 * A call's media path kept up by ICE restarts (lib/platform/web/media/media-path.ts), on a fake clock and a fake path: its state,
 * and audio that arrives at 50 packets a second while `flowing`.
 */

function watched(options: { refuse?: boolean; farEndSends?: boolean } = {}) {
  const clock = new FakeClock(0);
  const path = { state: 'connecting' as RTCPeerConnectionState, flowing: false, received: 0, since: 0 };
  const listeners = new Set<() => void>();
  const seen: string[] = [];
  const sample = async (): Promise<PathSample> => {
    if (path.flowing) path.received += Math.floor((clock.now() - path.since) / 20);
    path.since = clock.now();
    return { state: path.state, received: path.received, farEndSends: options.farEndSends ?? true };
  };
  const stop = watchMediaPath({
    sample,
    onStateChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clock,
    restartIce: () => {
      seen.push(`restart@${clock.now()}`);
      return options.refuse ? Promise.reject(new Error('re-INVITE answered 488')) : Promise.resolve();
    },
    onConnected: () => void seen.push(`connected@${clock.now()}`),
    onReconnecting: () => void seen.push(`reconnecting@${clock.now()}`),
    onFailed: () => void seen.push(`failed@${clock.now()}`),
  });
  /** The connection's state changes (the watch looks at once), and audio flows or stops with it. */
  const set = async (state: RTCPeerConnectionState, flowing = state === 'connected') => {
    await sample(); // the audio counted so far arrived before the change
    path.state = state;
    path.flowing = flowing;
    // Audio that flows comes with the connection: its first packet is there by the time the change is looked at.
    if (flowing) path.received += 1;
    for (const listener of listeners) listener();
    await clock.advance(0);
  };
  const lose = async () => {
    await sample();
    path.flowing = false;
  };
  return { clock, seen, stop, set, lose, listeners };
}

describe('the media path watch', () => {
  it('tells of the media once connected, and restarts nothing while the audio flows', async () => {
    const { clock, seen, set } = watched();
    await set('connected');
    await clock.advance(60_000);
    expect(seen).toEqual(['connected@0']);
  });

  it('leaves a silence shorter than 2 s alone: the path may come back by itself', async () => {
    const { clock, seen, set, lose } = watched();
    await set('connected');
    await lose();
    await clock.advance(SILENT_DOWN_MS - SAMPLE_MS);
    await set('connected');
    await clock.advance(10_000);
    expect(seen).toEqual(['connected@0']);
  });

  it('restarts ICE when no audio came for 2 s though the state says connected, and tells when it flows again', async () => {
    const { clock, seen, set, lose } = watched();
    await set('connected');
    await clock.advance(1000);
    await lose();
    await clock.advance(SILENT_DOWN_MS + SAMPLE_MS);
    const restartAt = seen.find((line) => line.startsWith('restart'));
    expect(seen.slice(1)).toEqual([restartAt?.replace('restart', 'reconnecting'), restartAt]);
    // Heard last at 1000 (the sample there); looked at every 500 ms: restarted within one look of 2 s silent.
    const at = Number(restartAt?.split('@')[1]);
    expect(at - 1000).toBeGreaterThanOrEqual(SILENT_DOWN_MS);
    expect(at - 1000).toBeLessThanOrEqual(SILENT_DOWN_MS + SAMPLE_MS);
    await set('connected');
    await clock.advance(SAMPLE_MS);
    expect(seen.at(-1)).toMatch(/^connected@/);
    expect(seen.filter((line) => line.startsWith('restart'))).toHaveLength(1);
  });

  it('restarts at once when the path failed', async () => {
    const { clock, seen, set } = watched();
    await set('connected');
    await clock.advance(500);
    await set('failed');
    expect(seen).toEqual(['connected@0', 'reconnecting@500', 'restart@500']);
  });

  it('tries the next restart when one does not bring the audio back, and gives up after three, once', async () => {
    const { clock, seen, set } = watched();
    await set('connected');
    await set('failed');
    await clock.advance(RESTART_WAIT_MS * (MAX_RESTARTS + 2));
    expect(seen).toEqual(['connected@0', 'reconnecting@0', 'restart@0', 'restart@5000', 'restart@10000', 'failed@15000']);
    await set('connected'); // the watch has stopped: nothing more is told
    expect(seen.at(-1)).toBe('failed@15000');
    expect(clock.pendingTimers).toBe(0);
  });

  it('counts a refused re-INVITE as a failed restart and tries again after the wait', async () => {
    const { clock, seen, set } = watched({ refuse: true });
    await set('connected');
    await set('failed');
    await clock.advance(RESTART_WAIT_MS);
    expect(seen).toEqual(['connected@0', 'reconnecting@0', 'restart@0', 'restart@5000']);
  });

  it('starts the count afresh once the audio came back', async () => {
    const { clock, seen, set } = watched();
    await set('connected');
    for (let round = 0; round < 3; round++) {
      await set('failed');
      await clock.advance(RESTART_WAIT_MS);
      await set('failed');
      await clock.advance(100);
      await set('connected');
      await clock.advance(SAMPLE_MS);
    }
    expect(seen.filter((line) => line.startsWith('failed'))).toEqual([]);
    expect(seen.filter((line) => line.startsWith('reconnecting'))).toHaveLength(3);
    expect(seen.filter((line) => line.startsWith('connected'))).toHaveLength(4);
  });

  it('takes the silence of a far end that sends nothing (recvonly, inactive) for what it is', async () => {
    const { clock, seen, set } = watched({ farEndSends: false });
    await set('connected', false);
    await clock.advance(60_000);
    expect(seen).toEqual(['connected@0']);
  });

  it('tells nothing of a path connected that carries no audio, until its audio comes; silent on, it is restarted', async () => {
    const { clock, seen, set } = watched();
    await set('connected', false);
    await clock.advance(1000);
    expect(seen).toEqual([]);
    await set('connected', true);
    expect(seen).toEqual(['connected@1000']);

    const silent = watched();
    await silent.set('connected', false);
    await silent.clock.advance(SILENT_DOWN_MS + SAMPLE_MS);
    expect(silent.seen).toEqual(['reconnecting@2000', 'restart@2000']);
    await silent.set('connected', true);
    expect(silent.seen.at(-1)).toBe('connected@2500');
  });

  it('waits for ICE to come up the first time: only a failure before it is a lost path', async () => {
    const { clock, seen, set } = watched();
    await clock.advance(30_000);
    expect(seen).toEqual([]);
    await set('failed');
    expect(seen).toEqual(['reconnecting@30000', 'restart@30000']);
  });

  it('stops with the call: no restart, no timer and no listener after it', async () => {
    const { clock, seen, set, lose, stop, listeners } = watched();
    await set('connected');
    await lose();
    stop();
    await clock.advance(60_000);
    expect(seen).toEqual(['connected@0']);
    expect(clock.pendingTimers).toBe(0);
    expect(listeners.size).toBe(0);
  });
});
