import { describe, expect, it } from 'vitest';
import { createCallWarnings, LOSS_WARN_PERCENT, RTT_WARN_MS, SILENCE_WARN_MS, SILENT_LEVEL } from '../../../lib/core/call-warnings.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';

/**
 * Warnings during a call (lib/core/call-warnings.ts), on a fake clock: looks every 500 ms at the audio received
 * (50 packets a second while the far end is heard) and at the microphone's energy, and quality samples.
 */

function call(options: { farEndSends?: boolean } = {}) {
  const clock = new FakeClock(0);
  const seen: string[] = [];
  const warnings = createCallWarnings(clock, (warning, raised) => void seen.push(`${raised ? '+' : '-'}${warning}@${clock.now()}`));
  const state = { path: 'connected' as RTCPeerConnectionState, received: 0, heard: true, level: 0.2, energy: 0, seconds: 0, muted: false };
  /** Half a second of the call, then a look at it. */
  const tick = async () => {
    await clock.advance(500);
    if (state.heard && state.path === 'connected') state.received += 25;
    state.energy += state.level * state.level * 0.5;
    state.seconds += 0.5;
    warnings.look({ state: state.path, received: state.received, farEndSends: options.farEndSends ?? true, micEnergy: state.energy, micSeconds: state.seconds, muted: state.muted });
  };
  const during = async (ms: number) => {
    for (let t = 0; t < ms; t += 500) await tick();
  };
  return { clock, seen, warnings, state, during };
}

describe('warnings during a call', () => {
  it('raises nothing while the audio flows both ways', async () => {
    const { seen, during } = call();
    await during(30_000);
    expect(seen).toEqual([]);
  });

  it('raises no_inbound_audio after 3 s without audio from the far end, and clears it when audio returns', async () => {
    const { seen, state, during } = call();
    await during(2000);
    state.heard = false;
    await during(SILENCE_WARN_MS - 500);
    expect(seen).toEqual([]);
    await during(500);
    expect(seen).toEqual(['+no_inbound_audio@5000']);
    await during(5000);
    state.heard = true;
    await during(500);
    expect(seen).toEqual(['+no_inbound_audio@5000', '-no_inbound_audio@10500']);
  });

  it('raises no_audio_path, not no_inbound_audio, while the path never connected, and clears it once connected', async () => {
    const { seen, state, during } = call();
    state.path = 'connecting';
    await during(SILENCE_WARN_MS - 500);
    expect(seen).toEqual([]);
    await during(10_000);
    expect(seen).toEqual(['+no_audio_path@3000']);
    state.path = 'connected';
    await during(500);
    expect(seen).toEqual(['+no_audio_path@3000', '-no_audio_path@13000']);
    await during(10_000);
    expect(seen).toHaveLength(2);
  });

  it('counts the far end silent only from the path connecting, and never says no_audio_path once it connected', async () => {
    const { seen, state, during } = call();
    state.path = 'connecting';
    state.heard = false;
    await during(2000);
    state.path = 'connected';
    await during(SILENCE_WARN_MS - 500);
    expect(seen).toEqual([]);
    await during(500);
    expect(seen).toEqual(['+no_inbound_audio@5000']);
    state.path = 'disconnected';
    await during(10_000);
    expect(seen).toEqual(['+no_inbound_audio@5000']);
  });

  it('does not take the silence of a far end that sends nothing for a lost path', async () => {
    const { seen, state, during } = call({ farEndSends: false });
    state.heard = false;
    await during(10_000);
    expect(seen).toEqual([]);
  });

  it('raises silent_microphone after 3 s of silence sent while not muted, clears it on sound, and never while muted', async () => {
    const { seen, state, during } = call();
    await during(1000);
    state.level = SILENT_LEVEL / 2;
    await during(SILENCE_WARN_MS);
    expect(seen).toEqual(['+silent_microphone@4000']);
    state.level = 0.05;
    await during(500);
    expect(seen.at(-1)).toBe('-silent_microphone@4500');
    state.muted = true;
    state.level = 0;
    await during(10_000);
    expect(seen).toHaveLength(2);
  });

  it('raises high_packet_loss over 5 % and high_rtt over 400 ms, each cleared by the next sample under it', () => {
    const { seen, warnings } = call();
    warnings.quality({ lossPercent: LOSS_WARN_PERCENT, rttMs: RTT_WARN_MS });
    expect(seen).toEqual([]);
    warnings.quality({ lossPercent: 8.5, rttMs: 450 });
    warnings.quality({ lossPercent: 9, rttMs: 500 });
    expect(seen).toEqual(['+high_packet_loss@0', '+high_rtt@0']);
    // A figure the browser did not report (no packet due) changes nothing.
    warnings.quality({ lossPercent: null, rttMs: null });
    warnings.quality({ lossPercent: 0, rttMs: 40 });
    expect(seen).toEqual(['+high_packet_loss@0', '+high_rtt@0', '-high_packet_loss@0', '-high_rtt@0']);
  });
});
