/**
 * A network path's impairment of one direction of a call's media, as a pure stage: each packet offered to it is
 * lost or given the time it arrives. Random loss (Bernoulli) or bursty loss (the two-state Gilbert-Elliott
 * chain of RFC 3611 section 4.7.2 and ITU-T G.1050, a good state that loses nothing and a bad one that loses
 * all), a bottleneck link of a given rate with a bounded queue (tail drop), a one-way delay with jitter, and
 * reordering. It reads no clock and no global random source: the caller passes the time and a seed, so a test
 * replays the same path packet by packet.
 */

/** Which way an impairment works: on what the simulator sends the page, or on what the page sends it. */
export type MediaDirection = 'to-browser' | 'from-browser';

/** How one direction of a call's media path is impaired; every field is optional, absent meaning a perfect path. */
export interface Impairment {
  /** Share of packets lost over the long run, percent. */
  lossPercent?: number;
  /**
   * Mean length of a loss burst, in packets: 1 (the default) loses each packet on its own (random loss); more
   * makes losses come in runs of that mean length (Gilbert-Elliott), at the same long-run share.
   */
  burstPackets?: number;
  /** One-way delay added to every packet, ms. */
  delayMs?: number;
  /** Each packet's delay varies uniformly within this much either side of `delayMs`, ms; order is kept. */
  jitterMs?: number;
  /** Share of packets held back, percent: each arrives {@link REORDER_HOLD_MS} after it would have, behind later ones. */
  reorderPercent?: number;
  /** A bottleneck of this rate, kbit/s: packets queue behind it, and one that would wait past `queueMs` is dropped. */
  rateKbps?: number;
  /** The bottleneck's queue, as the longest wait it holds, ms; default {@link DEFAULT_QUEUE_MS}. */
  queueMs?: number;
}

/** How long a reordered packet is held back behind those sent after it. */
export const REORDER_HOLD_MS = 40;
/** A bottleneck's default queue: a home router's buffer, as the longest wait it holds. */
export const DEFAULT_QUEUE_MS = 200;

/** What became of one packet: lost (and why), or when it arrives. */
export type PacketFate = { lost: 'loss' | 'queue' } | { lost?: undefined; at: number };

/** One direction's impairment, packet by packet. */
export interface ImpairmentStage {
  /** The packet of `bytes` sent at `now` (ms): lost, or the time it arrives. */
  admit(bytes: number, now: number): PacketFate;
}

/** A seeded pseudo-random source in [0, 1): mulberry32, small and good enough to draw a path's losses. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x100000000;
  };
}

/**
 * The loss chain: with `burst` 1, each packet is lost with probability `share`; above it, a Gilbert-Elliott chain
 * whose bad state (every packet lost) lasts `burst` packets on average (leaves with r = 1 / burst) and is
 * entered with p = r * share / (1 - share), so that its stationary share p / (p + r) is `share`.
 */
function lossChain(share: number, burst: number, random: () => number): () => boolean {
  if (share <= 0) return () => false;
  if (share >= 1) return () => true;
  if (burst <= 1) return () => random() < share;
  const r = 1 / burst;
  const p = Math.min(1, (r * share) / (1 - share));
  let bad = random() < share;
  return () => {
    bad = bad ? random() >= r : random() < p;
    return bad;
  };
}

/** Creates the stage of one direction; the same `impairment` and `seed` give the same fates for the same packets. */
export function createImpairmentStage(impairment: Impairment, seed: number): ImpairmentStage {
  const random = seededRandom(seed);
  const lost = lossChain((impairment.lossPercent ?? 0) / 100, impairment.burstPackets ?? 1, random);
  const delay = impairment.delayMs ?? 0;
  const jitter = impairment.jitterMs ?? 0;
  const reorder = (impairment.reorderPercent ?? 0) / 100;
  const bitsPerMs = impairment.rateKbps === undefined ? undefined : impairment.rateKbps;
  const queueMs = impairment.queueMs ?? DEFAULT_QUEUE_MS;
  /** When the bottleneck has sent all it holds. */
  let linkFreeAt = -Infinity;
  /** When the last packet in order arrives: jitter alone never overtakes it, as a queue's delay does not. */
  let lastAt = -Infinity;
  return {
    admit(bytes, now) {
      if (lost()) return { lost: 'loss' };
      let sent = now;
      if (bitsPerMs !== undefined) {
        const start = Math.max(now, linkFreeAt);
        if (start - now > queueMs) return { lost: 'queue' };
        linkFreeAt = start + (bytes * 8) / bitsPerMs;
        sent = linkFreeAt;
      }
      const at = Math.max(sent + Math.max(0, delay + (random() * 2 - 1) * jitter), lastAt);
      if (reorder > 0 && random() < reorder) return { at: at + REORDER_HOLD_MS };
      lastAt = at;
      return { at };
    },
  };
}
