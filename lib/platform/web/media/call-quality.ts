import type { Clock } from '../../../core/clock.js';
import { statsMicrophone, type MicrophoneTotals } from './microphone-meter.js';
import type { CallQuality } from '../../../core/types.js';

/**
 * Call quality from the peer connection's statistics (W3C webrtc-stats), sampled while a call's media flows.
 * Part of the SIP chunk: only the call's watch samples it.
 */

/** How often a connected call's statistics are read (ms). */
export const QUALITY_SAMPLE_MS = 2000;

/** Packet counters of the last sample: loss is told per interval, not since the call began. */
export interface QualityTotals {
  packetsReceived: number;
  packetsLost: number;
  /** The microphone's `totalAudioEnergy` and `totalSamplesDuration` (media-source, or the microphone meter's). */
  micEnergy: number;
  micSeconds: number;
}

interface AudioStats {
  type: string;
  kind?: string;
  packetsReceived?: number;
  packetsLost?: number;
  packetsSent?: number;
  jitter?: number;
  roundTripTime?: number;
  currentRoundTripTime?: number;
  selectedCandidatePairId?: string;
  selected?: boolean;
  codecId?: string;
  mimeType?: string;
  localCandidateId?: string;
  candidateType?: string;
  relayProtocol?: string;
  protocol?: string;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

/**
 * Mean opinion score (1-4.5) from one-way delay, jitter and loss by the simplified E-model of ITU-T G.107 for
 * G.711 (the delay impairment of Cole and Rosenbluth, 2001): a rough guide, not a measurement of speech.
 */
export function estimateMos(rttMs: number, jitterMs: number, lossPercent: number): number {
  const latency = rttMs / 2 + 2 * jitterMs + 10;
  const r = 93.2 - (latency < 160 ? latency / 40 : (latency - 120) / 10) - 2.5 * lossPercent;
  if (r <= 0) return 1;
  return round1(Math.min(4.5, 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)));
}

/**
 * One sample from a stats report; `previous` is the last sample's totals, `microphone` the microphone's (default:
 * the report's own, which Firefox lacks).
 */
export function readQuality(report: RTCStatsReport, previous?: QualityTotals, microphone = statsMicrophone(report)): { quality: CallQuality; totals: QualityTotals } {
  let inbound: AudioStats | undefined;
  let outbound: AudioStats | undefined;
  let remoteRtt: number | undefined;
  let pairId: string | undefined;
  let selectedPair: AudioStats | undefined;
  report.forEach((stat: AudioStats) => {
    if (stat.type === 'inbound-rtp' && stat.kind === 'audio') inbound = stat;
    else if (stat.type === 'outbound-rtp' && stat.kind === 'audio') outbound = stat;
    // RTCP receiver reports give the round trip of the media itself; ICE's own checks are the fallback.
    else if (stat.type === 'remote-inbound-rtp' && stat.kind === 'audio' && stat.roundTripTime !== undefined) remoteRtt = stat.roundTripTime;
    // The pair in use: webrtc-stats names it on the transport (libwebrtc: Chromium, Safari); Firefox has no
    // transport stats (bug 1225723) and marks the pair itself `selected`. A nominated pair may be one left from
    // before an ICE restart.
    else if (stat.type === 'transport') pairId ??= stat.selectedCandidatePairId;
    else if (stat.type === 'candidate-pair' && stat.selected) selectedPair = stat;
  });
  const pair: AudioStats | undefined = (pairId && report.get(pairId)) || selectedPair;
  const totals = {
    packetsReceived: inbound?.packetsReceived ?? 0,
    packetsLost: Math.max(0, inbound?.packetsLost ?? 0),
    micEnergy: microphone?.energy ?? 0,
    micSeconds: microphone?.seconds ?? 0,
  };
  const received = totals.packetsReceived - (previous?.packetsReceived ?? 0);
  const lost = totals.packetsLost - (previous?.packetsLost ?? 0);
  const rtt = remoteRtt ?? pair?.currentRoundTripTime;
  const rttMs = rtt === undefined ? null : round1(rtt * 1000);
  const jitterMs = inbound?.jitter === undefined ? null : round1(inbound.jitter * 1000);
  const lossPercent = received + lost > 0 ? round1((100 * Math.max(0, lost)) / (received + lost)) : null;
  // totalAudioEnergy sums the level squared over time: its mean over the interval, rooted, is the mean level.
  const micSeconds = totals.micSeconds - (previous?.micSeconds ?? 0);
  const microphoneLevel = micSeconds > 0 ? Math.round(Math.sqrt(Math.max(0, totals.micEnergy - (previous?.micEnergy ?? 0)) / micSeconds) * 1e4) / 1e4 : null;
  // The pair's own candidate: its type, and for a relay how it reaches the TURN server (webrtc-stats relayProtocol).
  const local = pair?.localCandidateId ? (report.get(pair.localCandidateId) as AudioStats | undefined) : undefined;
  const codec = inbound?.codecId ? (report.get(inbound.codecId) as AudioStats | undefined)?.mimeType?.replace(/^audio\//i, '') ?? null : null;
  return {
    quality: {
      rttMs,
      jitterMs,
      packetsReceived: totals.packetsReceived,
      packetsLost: totals.packetsLost,
      lossPercent,
      packetsSent: outbound?.packetsSent ?? 0,
      mos: jitterMs === null || lossPercent === null ? null : estimateMos(rttMs ?? 0, jitterMs, lossPercent),
      codec,
      microphoneLevel,
      path: local ? `${local.candidateType}/${local.relayProtocol ?? local.protocol}` : null,
    },
    totals,
  };
}

/**
 * Reads `pc`'s statistics every {@link QUALITY_SAMPLE_MS} and reports each sample; returns the stop function.
 * A failed read (the connection closing) is skipped, never thrown from the timer. `microphone` reads the
 * microphone's totals from each report (a microphone meter's; default: the report's own).
 */
export function watchQuality(pc: RTCPeerConnection, clock: Clock, onSample: (quality: CallQuality) => void, microphone = statsMicrophone): () => void {
  let previous: QualityTotals | undefined;
  let timer: unknown;
  let stopped = false;
  const tick = async () => {
    try {
      const report = await pc.getStats();
      const { quality, totals } = readQuality(report, previous, microphone(report));
      previous = totals;
      if (!stopped) onSample(quality);
    } catch {
      // getStats() rejects once the connection closes; the call's end stops the watch.
    }
    if (!stopped) timer = clock.setTimeout(() => void tick(), QUALITY_SAMPLE_MS);
  };
  timer = clock.setTimeout(() => void tick(), QUALITY_SAMPLE_MS);
  return () => {
    stopped = true;
    clock.clearTimeout(timer);
  };
}
