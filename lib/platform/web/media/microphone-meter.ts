/**
 * The microphone's level where the browser's statistics lack it. webrtc-stats puts it on the `media-source`
 * (`totalAudioEnergy`, `totalSamplesDuration`), as Chromium reports it; Firefox's `media-source` carries only
 * `trackIdentifier` and `kind`. There it is measured from the track the call already sends, through Web Audio:
 * an AnalyserNode on a MediaStreamAudioSourceNode of the sender's own track, never a second getUserMedia. Part
 * of the SIP chunk: the call's watch makes one meter per call and closes it at the call's end.
 */

/** The microphone's running totals as webrtc-stats gives them: energy (level squared times seconds) and seconds. */
export interface MicrophoneTotals {
  energy: number;
  seconds: number;
}

/** The AnalyserNode as the meter reads it. */
export interface MeterAnalyser {
  fftSize: number;
  getFloatTimeDomainData(samples: Float32Array<ArrayBuffer>): void;
}

/** The parts of an AudioContext the meter uses: the seam tests fill with a fake (happy-dom has no Web Audio). */
export interface MeterAudioContext {
  readonly state: string;
  /** Seconds of audio rendered: it stands still while the context is suspended. */
  readonly currentTime: number;
  createAnalyser(): MeterAnalyser;
  createMediaStreamSource(stream: MediaStream): { connect(analyser: object): unknown; disconnect(): void };
  resume(): Promise<void>;
  close(): Promise<void>;
}

/** One call's microphone level: from the statistics where they have it, else measured. */
export interface MicrophoneMeter {
  /**
   * The totals of `report`'s `media-source` when it has them (no AudioContext is made then), else the meter's;
   * undefined when neither can be had (no Web Audio, no track sent): the level is then unknown, never 0.
   */
  read(report: RTCStatsReport): MicrophoneTotals | undefined;
  /** Disconnects the track and closes the AudioContext; read() makes none again. */
  close(): void;
}

/** The largest analysis window Web Audio allows (AnalyserNode, `fftSize`): at 48 kHz it spans the 500 ms between looks. */
const WINDOW = 32768;

const browserAudio = (): MeterAudioContext | undefined => (typeof AudioContext === 'function' ? new AudioContext() : undefined);

/** The microphone's totals in a stats report, when its `media-source` carries them (Chromium). */
export function statsMicrophone(report: RTCStatsReport): MicrophoneTotals | undefined {
  let totals: MicrophoneTotals | undefined;
  report.forEach((stat: { type: string; kind?: string; totalAudioEnergy?: number; totalSamplesDuration?: number }) => {
    if (stat.type === 'media-source' && stat.kind === 'audio' && stat.totalAudioEnergy !== undefined) {
      totals = { energy: stat.totalAudioEnergy, seconds: stat.totalSamplesDuration ?? 0 };
    }
  });
  return totals;
}

/**
 * The meter of `pc`'s sent audio, opened on the first read whose statistics lack the level.
 *
 * @remarks
 * Each read adds the mean square of the analyser's window times the audio time since the last read, the sum
 * `totalAudioEnergy` keeps. A read that comes late (a hidden page's timer) counts that window for the whole gap.
 * The time is the context's own: it stands still while the context is suspended (autoplay policy; Firefox lets a
 * page play while it captures the microphone, AutoplayPolicy.cpp `IsActivelyCapturingOrHasAPermission`), so
 * nothing is counted then and the level stays unknown. A replaced
 * track (microphone unplugged mid-call) is followed.
 */
export function createMicrophoneMeter(pc: RTCPeerConnection, open: () => MeterAudioContext | undefined = browserAudio): MicrophoneMeter {
  let context: MeterAudioContext | undefined;
  let analyser: MeterAnalyser | undefined;
  let source: ReturnType<MeterAudioContext['createMediaStreamSource']> | undefined;
  let track: MediaStreamTrack | undefined;
  let samples = new Float32Array(0);
  let readAt: number | undefined;
  let closed = false;
  const totals: MicrophoneTotals = { energy: 0, seconds: 0 };

  function close(): void {
    closed = true;
    source?.disconnect();
    void context?.close().catch(() => undefined);
  }

  function measure(sending: MediaStreamTrack): MicrophoneTotals | undefined {
    context ??= open();
    if (!context) return undefined;
    if (sending !== track) {
      source?.disconnect();
      analyser ??= Object.assign(context.createAnalyser(), { fftSize: WINDOW });
      samples = new Float32Array(WINDOW);
      source = context.createMediaStreamSource(new MediaStream([sending]));
      source.connect(analyser);
      track = sending;
      readAt = undefined;
    }
    if (context.state === 'suspended') void context.resume().catch(() => undefined);
    const now = context.currentTime;
    if (readAt !== undefined && now > readAt && analyser) {
      analyser.getFloatTimeDomainData(samples);
      let square = 0;
      for (const sample of samples) square += sample * sample;
      totals.energy += (square / samples.length) * (now - readAt);
      totals.seconds += now - readAt;
    }
    readAt = now;
    return { ...totals };
  }

  return {
    read(report) {
      const stats = statsMicrophone(report);
      const sending = pc.getSenders().find((sender) => sender.track?.kind === 'audio')?.track;
      if (stats || closed || !sending) return stats;
      try {
        return measure(sending);
      } catch {
        // Web Audio refused the track: the level stays unknown for this call rather than guessed.
        close();
        return undefined;
      }
    },
    close,
  };
}
