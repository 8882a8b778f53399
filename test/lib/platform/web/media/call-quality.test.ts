// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { QUALITY_SAMPLE_MS, estimateMos, readQuality, watchQuality } from '../../../../../lib/platform/web/media/call-quality.js';
import type { CallQuality } from '../../../../../lib/core/types.js';
import { FakeClock } from '../../../../../lib/testing/fake-clock.js';
import { firefoxReport } from '../../../../support/firefox-stats.js';
import { inCall } from '../../../../support/helper-world.js';

/** A stats report as Chromium gives one for an audio call: a Map of stats by id. */
function report(inbound: { packetsReceived: number; packetsLost: number; jitter?: number }, extra: Array<Record<string, unknown>> = []): RTCStatsReport {
  const stats: Array<Record<string, unknown>> = [
    { id: 'IT01A', type: 'inbound-rtp', kind: 'audio', codecId: 'CIT01_0', ...inbound },
    { id: 'OT01A', type: 'outbound-rtp', kind: 'audio', packetsSent: 250 },
    { id: 'CIT01_0', type: 'codec', mimeType: 'audio/PCMU' },
    // Chromium names the pair in use on the transport; CP2 is the pair of the ICE generation before a restart.
    { id: 'T01', type: 'transport', selectedCandidatePairId: 'CP1', dtlsState: 'connected', iceState: 'connected' },
    { id: 'CP1', type: 'candidate-pair', transportId: 'T01', localCandidateId: 'L1', nominated: true, state: 'succeeded', currentRoundTripTime: 0.004 },
    { id: 'CP2', type: 'candidate-pair', transportId: 'T01', localCandidateId: 'L2', nominated: true, state: 'succeeded', currentRoundTripTime: 0.9 },
    { id: 'L1', type: 'local-candidate', transportId: 'T01', address: '127.0.0.1', protocol: 'udp', candidateType: 'host' },
    { id: 'L2', type: 'local-candidate', transportId: 'T01', address: '127.0.0.1', protocol: 'udp', candidateType: 'relay', relayProtocol: 'tls' },
    { id: 'CP3', type: 'candidate-pair', transportId: 'T01', nominated: false, state: 'failed', currentRoundTripTime: 9 },
    ...extra,
  ];
  return new Map(stats.map((stat) => [stat.id as string, stat])) as unknown as RTCStatsReport;
}

describe('readQuality', () => {
  it('reads jitter, packets, codec and the ICE round trip of an audio call', () => {
    const { quality } = readQuality(report({ packetsReceived: 100, packetsLost: 0, jitter: 0.0021 }));
    expect(quality).toEqual({ rttMs: 4, jitterMs: 2.1, packetsReceived: 100, packetsLost: 0, lossPercent: 0, packetsSent: 250, mos: 4.4, codec: 'PCMU', microphoneLevel: null, path: 'host/udp' });
  });

  it('tells the path of the pair in use: a relay by the protocol it reaches the TURN server with', () => {
    const relayed = (relayProtocol: string) =>
      report({ packetsReceived: 100, packetsLost: 0 }, [{ id: 'T01', type: 'transport', selectedCandidatePairId: 'CP2' }, { id: 'L2', type: 'local-candidate', protocol: 'udp', candidateType: 'relay', relayProtocol }]);
    expect(readQuality(relayed('tls')).quality.path).toBe('relay/tls');
    expect(readQuality(relayed('tcp')).quality.path).toBe('relay/tcp');
    expect(readQuality(relayed('udp')).quality.path).toBe('relay/udp');
  });

  it("tells the microphone's mean level over the interval from its media-source energy", () => {
    const source = (energy: number, seconds: number) => [{ id: 'S1', type: 'media-source', kind: 'audio', totalAudioEnergy: energy, totalSamplesDuration: seconds }];
    // Level 0.1 for 2 s: energy grows by 0.1² × 2.
    const first = readQuality(report({ packetsReceived: 100, packetsLost: 0 }, source(0.02, 2)));
    expect(first.quality.microphoneLevel).toBe(0.1);
    // Then silence for 2 s: the energy stays, the level of that interval is 0.
    const second = readQuality(report({ packetsReceived: 200, packetsLost: 0 }, source(0.02, 4)), first.totals);
    expect(second.quality.microphoneLevel).toBe(0);
  });

  it("reads Firefox's statistics: the pair marked selected (it has no transport stats), RTCP's round trip, no microphone level", () => {
    const { quality } = readQuality(firefoxReport({ packetsReceived: 100, jitter: 0.0031, pairRoundTripTime: 0.012 }));
    expect(quality).toEqual({ rttMs: 12, jitterMs: 3.1, packetsReceived: 100, packetsLost: 0, lossPercent: 0, packetsSent: 100, mos: 4.4, codec: 'PCMU', microphoneLevel: null, path: 'host/udp' });
    expect(readQuality(firefoxReport({ packetsReceived: 100, roundTripTime: 0.021, pairRoundTripTime: 0.012 })).quality.rttMs).toBe(21);
  });

  it('prefers the RTCP round trip of the media to the ICE checks', () => {
    const { quality } = readQuality(report({ packetsReceived: 100, packetsLost: 0 }, [{ id: 'RI', type: 'remote-inbound-rtp', kind: 'audio', roundTripTime: 0.0305 }]));
    expect(quality.rttMs).toBe(30.5);
  });

  it('tells the loss of the last interval, not since the call began', () => {
    const first = readQuality(report({ packetsReceived: 90, packetsLost: 10, jitter: 0.002 }));
    expect(first.quality.lossPercent).toBe(10);
    const second = readQuality(report({ packetsReceived: 190, packetsLost: 10, jitter: 0.002 }), first.totals);
    expect(second.quality).toMatchObject({ lossPercent: 0, packetsReceived: 190, packetsLost: 10 });
    const third = readQuality(report({ packetsReceived: 265, packetsLost: 35, jitter: 0.002 }), second.totals);
    expect(third.quality.lossPercent).toBe(25);
    expect(third.quality.mos).toBeLessThan(second.quality.mos ?? 0);
  });

  it('gives null for what the browser has not reported yet', () => {
    const empty = new Map() as unknown as RTCStatsReport;
    expect(readQuality(empty).quality).toEqual({ rttMs: null, jitterMs: null, packetsReceived: 0, packetsLost: 0, lossPercent: null, packetsSent: 0, mos: null, codec: null, microphoneLevel: null, path: null });
  });
});

describe('estimateMos', () => {
  it('is near 4.4 on a clean line and falls with delay, jitter and loss', () => {
    expect(estimateMos(0, 0, 0)).toBe(4.4);
    expect(estimateMos(300, 0, 0)).toBeLessThan(estimateMos(50, 0, 0));
    expect(estimateMos(50, 100, 0)).toBeLessThan(estimateMos(50, 2, 0));
    expect(estimateMos(50, 2, 10)).toBeLessThan(3.6);
    expect(estimateMos(2000, 200, 50)).toBe(1);
  });
});

describe('watchQuality', () => {
  it('samples every 2 s until stopped, and leaves no timer behind', async () => {
    const clock = new FakeClock();
    let received = 0;
    const pc = { getStats: async () => report({ packetsReceived: (received += 100), packetsLost: 0, jitter: 0.001 }) } as unknown as RTCPeerConnection;
    const samples: CallQuality[] = [];
    const stop = watchQuality(pc, clock, (quality) => samples.push(quality));
    await clock.advance(QUALITY_SAMPLE_MS - 1);
    expect(samples).toHaveLength(0);
    await clock.advance(1 + 2 * QUALITY_SAMPLE_MS);
    expect(samples.map((sample) => sample.packetsReceived)).toEqual([100, 200, 300]);
    stop();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(10 * QUALITY_SAMPLE_MS);
    expect(samples).toHaveLength(3);
  });

  it('skips a failed read and goes on', async () => {
    const clock = new FakeClock();
    let reads = 0;
    const pc = {
      getStats: async () => {
        reads += 1;
        if (reads === 1) throw new DOMException('closed', 'InvalidStateError');
        return report({ packetsReceived: 50, packetsLost: 0 });
      },
    } as unknown as RTCPeerConnection;
    const samples: CallQuality[] = [];
    const stop = watchQuality(pc, clock, (quality) => samples.push(quality));
    await clock.advance(2 * QUALITY_SAMPLE_MS);
    expect(samples).toHaveLength(1);
    stop();
  });
});

describe('onTiming call_quality', () => {
  it('passes the SIP link\'s samples to onTiming with the call id, timed from startCall()', async () => {
    const { sip, timings, clock } = await inCall();
    await clock.advance(3000);
    const quality = readQuality(report({ packetsReceived: 100, packetsLost: 0, jitter: 0.001 })).quality;
    sip.events.onQuality('call-1', quality);
    expect(timings.at(-1)).toEqual({ name: 'call_quality', callId: 'call-1', at: clock.now(), sinceStartMs: 3000, quality });
  });
});
