import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import type { BenchPage } from './browser.js';
import { ms, spread, type Row, type Spread } from './stats.js';

/**
 * A recording's length against the clocks around it: a page in a call to +12025550100 (a tone, then its own
 * microphone echoed), recorded `runs` times for a couple of seconds each through the simulator's REST routes,
 * and each WAV downloaded. How far the WAV's length strays from the time between the service's own `startedAt`
 * and `stoppedAt`, and from the time between its start and stop answers as this process got them. The mix follows the wall clock, so these stay small on an idle machine; a loaded one
 * delays the mixer's last tick and the answers, and both move.
 */

/** What the bench page puts on `window`. */
interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
}

export interface RecordingFigures {
  /** The WAV's length minus the service's start-to-stop, ms (negative: shorter). */
  wavMinusService: Spread;
  /** The WAV's length minus the time between the start and stop answers at the bench, ms. */
  wavMinusAnswers: Spread;
}

/** How long each recording runs. */
const RECORDED_MS = 2500;

/** The simulator's REST answer to `init`, its JSON when `status` is the expected one. */
async function rest<T>(url: string, status: number, init: RequestInit = {}): Promise<T> {
  const answer = await fetch(url, { ...init, headers: { 'x-api-key': DEFAULT_SIM_API_KEY, 'content-type': 'application/json' } });
  if (answer.status !== status) throw new Error(`bench: ${init.method ?? 'GET'} ${new URL(url).pathname} answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()) as T;
}

/** Milliseconds of 16-bit mono audio in a WAV file: its `data` chunk's size over its sample rate. */
function wavLengthMs(file: Buffer): number {
  const sampleRate = file.readUInt32LE(24);
  for (let at = 12; at + 8 <= file.length; at += 8 + file.readUInt32LE(at + 4)) {
    if (file.toString('ascii', at, at + 4) === 'data') return (file.readUInt32LE(at + 4) / 2 / sampleRate) * 1000;
  }
  throw new Error('bench: the recording has no data chunk');
}

/** One recording of `callId`: the WAV's length against the service's stamps and the answers' arrival. */
async function recordOnce(voiceUrl: string, callId: string): Promise<{ wavMs: number; serviceMs: number; answersMs: number }> {
  type Answer = { recording: { id: string; startedAt: string; stoppedAt: string | null } };
  const started = await rest<Answer>(`${voiceUrl}/calls/${callId}/recordings`, 201, { method: 'POST', body: '{}' });
  const startedAnswerAt = Date.now();
  await sleep(RECORDED_MS);
  const stopped = await rest<Answer>(`${voiceUrl}/calls/${callId}/recordings/${started.recording.id}/stop`, 200, { method: 'POST', body: '{}' });
  const answersMs = Date.now() - startedAnswerAt;
  const file = await fetch(`${voiceUrl}/recordings/${started.recording.id}/audio`, { headers: { 'x-api-key': DEFAULT_SIM_API_KEY } });
  if (file.status !== 200) throw new Error(`bench: the recording's audio answered ${file.status}`);
  const serviceMs = Date.parse(stopped.recording.stoppedAt ?? '') - Date.parse(started.recording.startedAt);
  return { wavMs: wavLengthMs(Buffer.from(await file.arrayBuffer())), serviceMs, answersMs };
}

export async function measureRecording(bench: BenchPage, simUrl: string, runs: number): Promise<{ figures: RecordingFigures; rows: Row[] }> {
  const callId = await bench.page.evaluate(async () => {
    const { voice, when } = window as unknown as PageGlobals;
    await voice.connect();
    const call = await voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: crypto.randomUUID() });
    await when((s) => s.call?.state === 'connected' && s.audio === 'playing', 10_000, 'a call with its audio playing');
    return call.id;
  });
  const service: number[] = [];
  const answers: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await recordOnce(`${simUrl}/api/v1/voice`, callId);
    service.push(run.wavMs - run.serviceMs);
    answers.push(run.wavMs - run.answersMs);
  }
  await bench.page.evaluate(async () => {
    const { voice, when } = window as unknown as PageGlobals;
    await voice.hangup();
    await when((s) => !s.busy, 10_000, 'the call over');
    await voice.disconnect();
  });
  const figures = { wavMinusService: spread(service), wavMinusAnswers: spread(answers) };
  const worst = (samples: number[]) => Math.max(...samples.map(Math.abs));
  return {
    figures,
    rows: [
      {
        figure: 'recording: WAV length − the service\'s start-to-stop (median)',
        value: `${ms(figures.wavMinusService.median)} (worst ${ms(worst(service))}, ${runs} runs of ${RECORDED_MS / 1000} s)`,
        target: 'within ±250 ms',
        met: worst(service) < 250,
      },
      {
        figure: 'recording: WAV length − the time between its start and stop answers (median)',
        value: `${ms(figures.wavMinusAnswers.median)} (worst ${ms(worst(answers))}, ${runs} runs)`,
        target: 'within ±800 ms',
        met: worst(answers) < 800,
      },
    ],
  };
}
