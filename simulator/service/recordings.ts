import { HttpError } from '../../contract/http-error.js';
import type { CallMixer, MixListener } from '../media/mixer.js';
import { newId, type Owned } from './resources.js';
import { WAV_HEADER_BYTES, wavFile } from '../media/wav.js';

/**
 * The simulated service's recordings (spec 4.8: start and stop recording, list and download recordings; the
 * paths are the simulator's, docs/simulator.md): each one the mix of both parties of a
 * call (`CallMixer`) from its start to its stop, or to the end of the call, kept in memory as a WAV file of 16-bit
 * PCM at 8 kHz, mono, under the API key that started it (or placed the call, for `record: true`).
 *
 * @remarks
 * The desk checks the recording's own rules (one running per call, a stop only of a running one, a download
 * only of a completed one); whether the call is in progress is the supervision's to check (`Supervision`).
 */

/** The sample rate of every recording: G.711's (RFC 3551 section 4.5.14). */
export const RECORDING_SAMPLE_RATE = 8000;

/** A recording as the service answers it. */
export interface Recording {
  /** `rec_` and letters or digits. */
  id: string;
  /** The call it records: a browser call (`bc_`) or a generic call (`c_`). */
  callId: string;
  /** `recording` until it stops; `completed` once its file can be downloaded. */
  state: 'recording' | 'completed';
  /** `record_on_create` when the call was placed with `record: true` (spec 2.6), `api` when started by a request. */
  startedBy: 'api' | 'record_on_create';
  /** Why it stopped: a stop request (`stopped`), or the end of the call (`call_ended`); null while recording. */
  stopReason: 'stopped' | 'call_ended' | null;
  startedAt: string;
  stoppedAt: string | null;
  /** The length of its audio, in milliseconds; null while recording. */
  durationMs: number | null;
  /** The size of its WAV file, header included; null while recording. */
  sizeBytes: number | null;
  contentType: 'audio/wav';
  sampleRate: number;
  channels: 1;
}

/** A recording as the desk keeps it: its frames while it runs, its file once it stopped. */
interface StoredRecording extends Owned<Recording> {
  frames: Int16Array[];
  file: Buffer | undefined;
  mixer: CallMixer;
  listener: MixListener;
}

export class RecordingDesk {
  private readonly recordings = new Map<string, StoredRecording>();

  constructor(private readonly now: () => number) {}

  /**
   * Starts recording the call whose mix is `mixer`, under `owner`. `409 recording_already_running` while one
   * runs for the call; `409 call_ended` when the call's audio ended meanwhile.
   */
  start(owner: string, callId: string, mixer: CallMixer, startedBy: Recording['startedBy'] = 'api'): Recording {
    if (this.runningOf(callId)) throw new HttpError(409, 'recording_already_running', 'this call is already being recorded; stop that recording first');
    const recording: Recording = {
      id: newId('rec'),
      callId,
      state: 'recording',
      startedBy,
      stopReason: null,
      startedAt: this.stamp(),
      stoppedAt: null,
      durationMs: null,
      sizeBytes: null,
      contentType: 'audio/wav',
      sampleRate: RECORDING_SAMPLE_RATE,
      channels: 1,
    };
    const frames: Int16Array[] = [];
    const stored: StoredRecording = {
      owner,
      value: recording,
      frames,
      file: undefined,
      mixer,
      listener: { frame: (samples) => void frames.push(samples), end: () => this.complete(stored, 'call_ended') },
    };
    if (!mixer.attach(stored.listener)) throw new HttpError(409, 'call_ended', 'the call is over; there is nothing left to record');
    this.recordings.set(recording.id, stored);
    return { ...recording };
  }

  /** Stops the key's recording `id` of call `callId`: `409 recording_not_running` when it already stopped. */
  stop(owner: string, callId: string, id: string): Recording {
    const stored = this.found(owner, id);
    if (stored.value.callId !== callId) throw new HttpError(404, 'not_found', 'no such recording of this call');
    if (stored.value.state !== 'recording') throw new HttpError(409, 'recording_not_running', 'this recording has already stopped');
    stored.mixer.detach(stored.listener);
    this.complete(stored, 'stopped');
    return { ...stored.value };
  }

  /** Whether a recording of the call is running. */
  runningOf(callId: string): boolean {
    for (const stored of this.recordings.values()) if (stored.value.callId === callId && stored.value.state === 'recording') return true;
    return false;
  }

  /** The key's recordings, oldest first; of one call when `callId` is given. */
  list(owner: string, callId?: string): Recording[] {
    return [...this.recordings.values()]
      .filter((stored) => stored.owner === owner && (callId === undefined || stored.value.callId === callId))
      .map((stored) => ({ ...stored.value }));
  }

  /** The key's recording; another key's is the same 404 as none (spec 4.7). */
  get(owner: string, id: string): Recording {
    return { ...this.found(owner, id).value };
  }

  /** The WAV file of the key's completed recording; `409 recording_in_progress` while it runs. */
  file(owner: string, id: string): Buffer {
    const stored = this.found(owner, id);
    if (!stored.file) throw new HttpError(409, 'recording_in_progress', 'this recording is still running; stop it, or wait for the call to end, then download it');
    return stored.file;
  }

  /** Forgets every recording; a running one stops listening first (simulator reset). */
  clear(): void {
    for (const stored of this.recordings.values()) stored.mixer.detach(stored.listener);
    this.recordings.clear();
  }

  private complete(stored: StoredRecording, reason: 'stopped' | 'call_ended'): void {
    if (stored.value.state !== 'recording') return;
    stored.file = wavFile(stored.frames, RECORDING_SAMPLE_RATE);
    stored.frames = [];
    stored.value = {
      ...stored.value,
      state: 'completed',
      stopReason: reason,
      stoppedAt: this.stamp(),
      durationMs: ((stored.file.length - WAV_HEADER_BYTES) / 2 / RECORDING_SAMPLE_RATE) * 1000,
      sizeBytes: stored.file.length,
    };
  }

  private found(owner: string, id: string): StoredRecording {
    const stored = this.recordings.get(id);
    if (!stored || stored.owner !== owner) throw new HttpError(404, 'not_found', 'no such recording');
    return stored;
  }

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }
}

