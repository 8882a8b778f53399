// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readQuality, watchQuality } from '../../../../../lib/platform/web/media/call-quality.js';
import { createMicrophoneMeter } from '../../../../../lib/platform/web/media/microphone-meter.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';
import type { CallQuality } from '../../../../../lib/core/types.js';
import { FakeCallPeerConnection } from '../../../../support/fake-call-media.js';
import { firefoxReport } from '../../../../support/firefox-stats.js';
import { fakeWebAudio, type WebAudioOptions } from '../../../../support/fake-web-audio.js';

/**
 * The microphone's level where the statistics lack it (lib/platform/web/media/microphone-meter.ts): Firefox's media-source, measured
 * from the sent track through a fake Web Audio whose clock runs with the test's.
 */

function world(engine: 'chromium' | 'firefox', options: WebAudioOptions = {}) {
  const clock = new FakeClock(0);
  const pc = new FakeCallPeerConnection(engine, clock);
  const audio = fakeWebAudio(clock, options);
  const meter = createMicrophoneMeter(pc as unknown as RTCPeerConnection, audio.open);
  /** Half a second of the call, then a read of its statistics, as the media path's looks do. */
  const look = async () => {
    await clock.advance(500);
    return meter.read(await pc.getStats());
  };
  const level = (totals: { energy: number; seconds: number } | undefined, from = { energy: 0, seconds: 0 }) =>
    totals && totals.seconds > from.seconds ? Math.sqrt((totals.energy - from.energy) / (totals.seconds - from.seconds)) : null;
  return { clock, pc, audio, meter, look, level };
}

afterEach(() => void vi.unstubAllGlobals());

describe('the microphone meter', () => {
  it('takes the level from the statistics where they carry it (Chromium), and makes no AudioContext', async () => {
    const { audio, look, level } = world('chromium');
    await look();
    expect(level(await look())).toBeCloseTo(0.05, 6);
    expect(audio.made).toEqual([]);
  });

  it("measures Firefox's level from the track the call sends, through Web Audio, without opening the microphone again", async () => {
    const getUserMedia = vi.fn(() => Promise.reject(new Error('a second capture')));
    vi.stubGlobal('navigator', { mediaDevices: { getUserMedia } });
    const { pc, audio, look, level } = world('firefox');
    const first = await look();
    // The first read opens the meter: no audio time has passed through it yet, so no level yet.
    expect(level(first)).toBeNull();
    const later = await look();
    expect(level(later, first)).toBeCloseTo(0.05, 6);
    expect(audio.made).toHaveLength(1);
    expect(audio.made[0]?.sources.map((source) => source.tracks)).toEqual([[pc.track]]);
    expect(getUserMedia).not.toHaveBeenCalled();
  });

  it('follows the level as it changes, silence included', async () => {
    const { audio, look, level } = world('firefox');
    await look();
    const talking = await look();
    const context = audio.made[0];
    if (context) context.level = 0;
    expect(level(await look(), talking)).toBe(0);
  });

  it('counts nothing while the AudioContext is suspended (autoplay policy), so the level stays unknown rather than 0', async () => {
    const { audio, look, level } = world('firefox', { suspended: true, mayResume: false });
    const blocked = await look();
    expect(level(await look(), blocked)).toBeNull();
    const context = audio.made[0];
    if (!context) throw new Error('no AudioContext');
    // Once the page may play (the capture counts, or a click), the meter measures.
    context.mayResume = true;
    const running = await look();
    expect(level(await look(), running)).toBeCloseTo(0.05, 6);
  });

  it('follows a replaced track (a microphone unplugged mid-call) and lets the old one go', async () => {
    const { pc, audio, look } = world('firefox');
    await look();
    const lost = pc.track;
    pc.track = { kind: 'audio', id: 'microphone-2', enabled: true } as unknown as MediaStreamTrack;
    await look();
    const sources = audio.made[0]?.sources ?? [];
    expect(sources.map((source) => [source.tracks[0], source.connected])).toEqual([
      [lost, false],
      [pc.track, true],
    ]);
    expect(audio.made).toHaveLength(1);
  });

  it('disconnects the track and closes its AudioContext on close(), and opens none after', async () => {
    const { audio, meter, look } = world('firefox');
    await look();
    meter.close();
    expect(audio.made.map((context) => context.state)).toEqual(['closed']);
    expect(audio.made[0]?.sources.every((source) => !source.connected)).toBe(true);
    expect(await look()).toBeUndefined();
    expect(audio.made).toHaveLength(1);
  });

  it('leaves the level unknown where there is no Web Audio, or Web Audio refuses the track', async () => {
    const clock = new FakeClock(0);
    const pc = new FakeCallPeerConnection('firefox', clock) as unknown as RTCPeerConnection;
    expect(createMicrophoneMeter(pc, () => undefined).read(await pc.getStats())).toBeUndefined();
    // happy-dom has no AudioContext: the browser's default finds none, as in a page without Web Audio.
    expect(createMicrophoneMeter(pc).read(await pc.getStats())).toBeUndefined();
    const audio = fakeWebAudio(clock);
    const refusing = createMicrophoneMeter(pc, () => Object.assign(audio.open(), { createMediaStreamSource: () => { throw new DOMException('different sample rate', 'NotSupportedError'); } }));
    expect(refusing.read(await pc.getStats())).toBeUndefined();
    expect(audio.made.map((context) => context.state)).toEqual(['closed']);
  });
});

describe("call quality's microphone level in Firefox", () => {
  it('is null from the statistics alone, and the measured level with the meter', async () => {
    const { clock, pc, audio } = world('firefox');
    expect(readQuality(firefoxReport({ packetsReceived: 100 })).quality.microphoneLevel).toBeNull();

    const meter = createMicrophoneMeter(pc as unknown as RTCPeerConnection, audio.open);
    const samples: CallQuality[] = [];
    // The media path's first look opens the meter as the call's media starts; quality samples follow.
    meter.read(await pc.getStats());
    const stop = watchQuality(pc as unknown as RTCPeerConnection, clock, (quality) => samples.push(quality), meter.read);
    await clock.advance(4000);
    stop();
    expect(samples.map((quality) => quality.microphoneLevel)).toEqual([0.05, 0.05]);
    expect(samples[0]).toMatchObject({ codec: 'PCMU', rttMs: 20 });
  });
});
