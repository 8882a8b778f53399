import type { Call, CallState } from '../../lib/platform/web/sip/sip-session.js';
import type { MediaControls } from '../../lib/platform/web/media/media-controls.js';
import type { DtmfMethod } from '../../lib/runtime/sip-link.js';
import type { FakeClock } from '../../lib/testing/fake-clock.js';
import { firefoxReport } from './firefox-stats.js';

/**
 * A call's media as sip-session.ts watches it, without SIP.js's transactions or a browser's WebRTC: a peer
 * connection that is up (a test may hold it in another state), receives 50 packets a second while up, sends the microphone's track and answers getStats() as
 * Chromium or Firefox does; and the link's call around it, whose state the test moves.
 */

export class FakeCallPeerConnection extends EventTarget {
  connectionState: RTCPeerConnectionState = 'connected';
  currentRemoteDescription: RTCSessionDescriptionInit | null = null;
  /** The microphone's track, as the audio sender holds it (replaceTrack() swaps it). */
  track = { kind: 'audio', id: 'microphone-1', enabled: true } as unknown as MediaStreamTrack;
  /** The level the microphone sends, for Chromium's media-source energy. */
  level = 0.05;
  private received = 0;
  /** The media-source's running totals, as Chromium keeps them: level squared times seconds, and seconds. */
  private energy = 0;
  private seconds = 0;
  private statsAt: number;

  constructor(
    private readonly engine: 'chromium' | 'firefox',
    private readonly clock: FakeClock,
  ) {
    super();
    this.statsAt = clock.now();
  }

  getSenders(): Array<{ track: MediaStreamTrack | null }> {
    return [{ track: this.track }];
  }

  getStats(): Promise<RTCStatsReport> {
    // Audio arrives only over a path that is up.
    if (this.connectionState === 'connected') this.received += 25;
    if (this.engine === 'firefox') return Promise.resolve(firefoxReport({ packetsReceived: this.received, roundTripTime: 0.02 }));
    const elapsed = (this.clock.now() - this.statsAt) / 1000;
    this.statsAt = this.clock.now();
    this.energy += this.level * this.level * elapsed;
    this.seconds += elapsed;
    const stats = [
      { id: 'IT01A', type: 'inbound-rtp', kind: 'audio', packetsReceived: this.received, packetsLost: 0, jitter: 0.002 },
      { id: 'SA1', type: 'media-source', kind: 'audio', trackIdentifier: 'microphone-1', audioLevel: this.level, totalAudioEnergy: this.energy, totalSamplesDuration: this.seconds },
    ];
    return Promise.resolve(new Map(stats.map((stat) => [stat.id, stat])) as unknown as RTCStatsReport);
  }

  /** Ends the connection, as close() does. */
  close(): void {
    this.connectionState = 'closed';
  }
}

/** The parts of a call sip-session.ts touches: its delegate, its state changes, its media handler. */
export function fakeSession(pc: FakeCallPeerConnection) {
  const session = {
    state: 'initial',
    delegate: undefined,
    listeners: [] as Array<(state: CallState) => void>,
    handler: { peerConnection: pc, remoteMediaStream: undefined, onMicrophone: undefined },
  };
  return {
    session: session as unknown as Call,
    /** The call moves to `state` (established, terminated), as the link moves it. */
    enter: (state: CallState) => {
      session.state = state;
      for (const listener of session.listeners) listener(state);
    },
  };
}

/** Media controls with a mute wish and nothing to play. */
export function quietMedia(): MediaControls & { muted: boolean } {
  const media = {
    muted: false,
    play: () => Promise.resolve(),
    resumeAudio: () => Promise.resolve(),
    setMuted: (muted: boolean) => void (media.muted = muted),
    isMuted: () => media.muted,
    applyMute: () => undefined,
    sendDtmf: (): Promise<DtmfMethod> => Promise.resolve('rfc4733'),
  };
  return media;
}
