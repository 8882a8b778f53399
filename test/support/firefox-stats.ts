/**
 * Statistics as Firefox reports them for an audio call (its `RTCStatsReport.webidl`, as Firefox ESR gives them):
 * a `media-source` with only `trackIdentifier` and `kind` (no `totalAudioEnergy`, no `totalSamplesDuration`),
 * no `transport` stats, and the candidate pair in use marked `selected`. Ids are Firefox's braced UUIDs.
 */

export interface FirefoxCallFigures {
  packetsReceived: number;
  packetsLost?: number;
  packetsSent?: number;
  /** Inbound jitter, seconds. */
  jitter?: number;
  /** RTCP round trip from the far end's receiver reports, seconds; absent before the first report. */
  roundTripTime?: number;
  /** The selected pair's STUN round trip, seconds. */
  pairRoundTripTime?: number;
}

/** One getStats() answer of Firefox for a call sending and receiving PCMU. */
export function firefoxReport(figures: FirefoxCallFigures, timestamp = 1_700_000_002_000): RTCStatsReport {
  const stats: Array<Record<string, unknown>> = [
    { id: '{5f0c7f0e-4b8e-4d54-9d8b-1d1b5b1b2a01}', timestamp, type: 'media-source', trackIdentifier: '{0b4a1b8e-6f47-4d7b-8f4e-3c3d2e1f0a11}', kind: 'audio' },
    {
      id: '{6a1b2c3d-0000-4e4e-8f8f-000000000001}', timestamp, type: 'inbound-rtp', kind: 'audio', mediaType: 'audio', ssrc: 2_864_011_215,
      codecId: '{c0dec000-0000-4000-8000-000000000000}', trackIdentifier: '{9e8d7c6b-5a49-4838-2716-051423324150}', mid: '0',
      packetsReceived: figures.packetsReceived, packetsLost: figures.packetsLost ?? 0, jitter: figures.jitter ?? 0.0025,
      bytesReceived: figures.packetsReceived * 172, totalAudioEnergy: 1.25, totalSamplesDuration: 2.02,
    },
    {
      id: '{6a1b2c3d-0000-4e4e-8f8f-000000000002}', timestamp, type: 'outbound-rtp', kind: 'audio', mediaType: 'audio', ssrc: 1_193_046_017,
      codecId: '{c0dec000-0000-4000-8000-000000000000}', mid: '0', packetsSent: figures.packetsSent ?? figures.packetsReceived, bytesSent: 17_200,
    },
    ...(figures.roundTripTime === undefined ? [] : [{
      id: '{6a1b2c3d-0000-4e4e-8f8f-000000000003}', timestamp, type: 'remote-inbound-rtp', kind: 'audio', mediaType: 'audio', ssrc: 1_193_046_017,
      localId: '{6a1b2c3d-0000-4e4e-8f8f-000000000002}', packetsReceived: 98, packetsLost: 0, jitter: 0.001, roundTripTime: figures.roundTripTime,
      totalRoundTripTime: figures.roundTripTime, fractionLost: 0, roundTripTimeMeasurements: 1,
    }]),
    { id: '{c0dec000-0000-4000-8000-000000000000}', timestamp, type: 'codec', payloadType: 0, transportId: '{transport-0}', mimeType: 'audio/PCMU', clockRate: 8000, channels: 1 },
    {
      id: '{9a9a9a9a-1111-4222-8333-444455556666}', timestamp, type: 'candidate-pair', transportId: '{transport-0}', localCandidateId: '{l1}', remoteCandidateId: '{r1}',
      state: 'succeeded', priority: 9_115_005_270_282_354_000, nominated: true, writable: true, readable: true, selected: true,
      bytesSent: 17_200, bytesReceived: 17_200, currentRoundTripTime: figures.pairRoundTripTime, totalRoundTripTime: 0.01, responsesReceived: 5,
    },
    // The pair of the ICE generation before a restart: still nominated and succeeded, no longer in use.
    {
      id: '{9a9a9a9a-1111-4222-8333-444455550000}', timestamp, type: 'candidate-pair', transportId: '{transport-0}', localCandidateId: '{l0}', remoteCandidateId: '{r0}',
      state: 'succeeded', priority: 9_115_005_270_282_354_000, nominated: true, writable: true, readable: true, selected: false,
      bytesSent: 900, bytesReceived: 900, currentRoundTripTime: 0.9, totalRoundTripTime: 0.9, responsesReceived: 1,
    },
    { id: '{l1}', timestamp, type: 'local-candidate', address: '127.0.0.1', port: 50_000, protocol: 'udp', candidateType: 'host', priority: 2_122_252_543 },
    { id: '{r1}', timestamp, type: 'remote-candidate', address: '127.0.0.1', port: 40_000, protocol: 'udp', candidateType: 'host', priority: 2_122_252_543 },
  ];
  return new Map(stats.map((stat) => [stat.id as string, stat])) as unknown as RTCStatsReport;
}
