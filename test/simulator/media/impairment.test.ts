import { describe, expect, it } from 'vitest';
import { createImpairmentStage, REORDER_HOLD_MS, seededRandom, type Impairment, type PacketFate } from '../../../simulator/media/impairment.js';

/**
 * The impairment stage alone: packets offered at the times a test gives (a packet every 20 ms, as an audio
 * stream's), their fates read back. Seeded, so every figure here is the same on every run.
 */

const FRAME_MS = 20;

/** Offers `n` packets of `bytes`, one every frame from time 0, and returns their fates. */
function run(impairment: Impairment, n: number, seed = 7, bytes = 172): PacketFate[] {
  const stage = createImpairmentStage(impairment, seed);
  return Array.from({ length: n }, (_, i) => stage.admit(bytes, i * FRAME_MS));
}

/** The lengths of the runs of consecutive lost packets. */
function bursts(fates: PacketFate[]): number[] {
  const runs: number[] = [];
  let length = 0;
  for (const fate of fates) {
    if (fate.lost) length++;
    else if (length > 0) runs.push(length), (length = 0);
  }
  if (length > 0) runs.push(length);
  return runs;
}

const lostShare = (fates: PacketFate[]) => fates.filter((fate) => fate.lost).length / fates.length;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe('impairment stage', () => {
  it('passes every packet at once on a perfect path', () => {
    expect(run({}, 50)).toEqual(Array.from({ length: 50 }, (_, i) => ({ at: i * FRAME_MS })));
  });

  it('loses about its share of packets at random, each on its own, and the same ones for the same seed', () => {
    const fates = run({ lossPercent: 5 }, 20_000);
    expect(lostShare(fates)).toBeGreaterThan(0.045);
    expect(lostShare(fates)).toBeLessThan(0.055);
    expect(mean(bursts(fates))).toBeLessThan(1.2);
    expect(run({ lossPercent: 5 }, 500)).toEqual(run({ lossPercent: 5 }, 500));
    expect(run({ lossPercent: 5 }, 500, 8)).not.toEqual(run({ lossPercent: 5 }, 500));
  });

  it('loses the same share in bursts of the mean length asked (Gilbert-Elliott)', () => {
    const fates = run({ lossPercent: 5, burstPackets: 4 }, 40_000);
    expect(lostShare(fates)).toBeGreaterThan(0.04);
    expect(lostShare(fates)).toBeLessThan(0.06);
    expect(mean(bursts(fates))).toBeGreaterThan(3.5);
    expect(mean(bursts(fates))).toBeLessThan(4.5);
  });

  it('delays every packet within the jitter around the delay, keeping their order', () => {
    const fates = run({ delayMs: 100, jitterMs: 30 }, 2000);
    const arrivals = fates.map((fate) => (fate.lost ? NaN : fate.at));
    const delays = arrivals.map((at, i) => at - i * FRAME_MS);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(70);
    // Order is kept: a packet may wait for the one before it, never overtake it.
    expect(arrivals.every((at, i) => i === 0 || at >= arrivals[i - 1]!)).toBe(true);
    expect(Math.max(...delays)).toBeLessThanOrEqual(130);
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(40);
  });

  it('holds back its share of packets behind later ones', () => {
    const fates = run({ reorderPercent: 10 }, 5000);
    const arrivals = fates.map((fate) => (fate.lost ? NaN : fate.at));
    const held = arrivals.filter((at, i) => at === i * FRAME_MS + REORDER_HOLD_MS).length;
    expect(held / arrivals.length).toBeGreaterThan(0.08);
    expect(held / arrivals.length).toBeLessThan(0.12);
    // Each held packet arrives after the next one sent, unless that one was held too.
    const isHeld = (i: number) => arrivals[i] === i * FRAME_MS + REORDER_HOLD_MS;
    const heldBeforeSent = arrivals.flatMap((_, i) => (isHeld(i) && i + 1 < arrivals.length && !isHeld(i + 1) ? [i] : []));
    expect(heldBeforeSent.length).toBeGreaterThan(0);
    expect(heldBeforeSent.every((i) => arrivals[i]! > arrivals[i + 1]!)).toBe(true);
  });

  it('queues packets behind a slow link and drops those that would wait past its queue', () => {
    // 172 bytes every 20 ms is 68.8 kbit/s: a 64 kbit/s link falls behind, its queue grows until it drops.
    const slow = run({ rateKbps: 64, queueMs: 100 }, 1000);
    const queued = slow.filter((fate) => fate.lost === 'queue').length;
    expect(queued).toBeGreaterThan(0);
    expect(slow.filter((fate) => fate.lost === 'loss')).toEqual([]);
    const waits = slow.flatMap((fate, i) => (fate.lost ? [] : [fate.at - i * FRAME_MS]));
    expect(Math.max(...waits)).toBeLessThanOrEqual(100 + (172 * 8) / 64);
    // A link fast enough only adds each packet's time on the wire.
    expect(run({ rateKbps: 1000 }, 100).every((fate, i) => !fate.lost && fate.at === i * FRAME_MS + (172 * 8) / 1000)).toBe(true);
  });

  it('draws numbers in [0, 1) from its seed', () => {
    const random = seededRandom(1);
    const draws = Array.from({ length: 1000 }, random);
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mean(draws)).toBeGreaterThan(0.45);
    expect(mean(draws)).toBeLessThan(0.55);
  });
});
