/**
 * Recording (spec 2.6 `record`, 4.8 "start and stop recording, list and download recordings"; docs/simulator.md
 * "Supervisors and recordings") against a real simulator spoken to by SIP.js in Node with werift media: the
 * audio of both parties of a call in progress, from the start request to the stop request or the end of the
 * call, kept as a WAV file and downloaded whole or by byte range (RFC 9110 section 14).
 */
import { describe, expect, it } from 'vitest';
import type { Recording } from '../../../simulator/service/recordings.js';
import { peakAmplitudeAt, readWav } from '../support/audio.js';
import { SIM_TEST_KEY, waitFor } from '../support/sim-api.js';
import { ended, talkingCall, useSipWorlds, type RegisteredWorld } from '../support/sip-world.js';

const { registeredWorld } = useSipWorlds();

type RecordingBody = { recording: Recording; code?: string };

/** A GET of the world's REST with `headers`, answered raw. */
const download = (w: RegisteredWorld, path: string, headers: Record<string, string> = {}) =>
  fetch(`${w.sim.baseUrl}/v1/voice${path}`, { headers: { 'X-Api-Key': SIM_TEST_KEY, ...headers } });

const start = (w: RegisteredWorld, callId: string) => w.api.request<RecordingBody>('POST', `/calls/${callId}/recordings`, {});
const stop = (w: RegisteredWorld, callId: string, id: string) => w.api.request<RecordingBody>('POST', `/calls/${callId}/recordings/${id}/stop`, {});

describe('recording a call in progress', () => {
  it('keeps both parties from start to stop as a WAV file of that length', async () => {
    // The recipient's 440 Hz tone plays throughout; the agent's page sends a 400 Hz tone.
    const w = await registeredWorld({ toneMs: 60_000 }, { media: 'werift' });
    const { callId } = await talkingCall(w);
    const startAsked = Date.now();
    const started = await start(w, callId);
    const startAnswered = Date.now();
    expect(started.status).toBe(201);
    const id = started.body.recording.id;
    expect(started.body.recording).toMatchObject({ callId, state: 'recording', startedBy: 'api', stoppedAt: null, durationMs: null, contentType: 'audio/wav', sampleRate: 8000, channels: 1 });

    expect((await start(w, callId)).body.code).toBe('recording_already_running');
    const early = await download(w, `/recordings/${id}/audio`);
    expect({ status: early.status, code: ((await early.json()) as { code: string }).code }).toEqual({ status: 409, code: 'recording_in_progress' });
    await waitFor(async () => ((await w.api.inspect(callId)).media?.packetsToBrowser ?? 0) > 75 || undefined, 'a while of conversation');

    const stopAsked = Date.now();
    const stopped = await stop(w, callId, id);
    const stopAnswered = Date.now();
    expect(stopped.status).toBe(200);
    const recording = stopped.body.recording;
    expect(recording).toMatchObject({ id, state: 'completed', stopReason: 'stopped', stoppedAt: expect.any(String) });
    expect((await stop(w, callId, id)).body.code).toBe('recording_not_running');

    const answer = await download(w, `/recordings/${id}/audio`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('audio/wav');
    expect(answer.headers.get('accept-ranges')).toBe('bytes');
    const file = Buffer.from(await answer.arrayBuffer());
    expect(Number(answer.headers.get('content-length'))).toBe(file.length);
    expect(recording.sizeBytes).toBe(file.length);
    const wav = readWav(file);
    expect(wav).toMatchObject({ format: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16, riffSize: file.length - 8, dataBytes: file.length - 44 });
    // As long as the recording ran, to the 20 ms frame: at most the time from the start request to the stop answer.
    expect(recording.durationMs).toBe((wav.samples.length / 8000) * 1000);
    expect(recording.durationMs).toBeLessThanOrEqual(stopAnswered - startAsked);
    expect(recording.durationMs).toBeGreaterThan(stopAsked - startAnswered - 20);
    expect(peakAmplitudeAt(wav.samples, 440)).toBeGreaterThan(2000);
    expect(peakAmplitudeAt(wav.samples, 400)).toBeGreaterThan(2000);
    expect(peakAmplitudeAt(wav.samples, 1000)).toBeLessThan(500);

    // Listed for its call and overall, read alone; a new one may start now that none runs.
    expect((await w.api.request<{ recordings: Recording[] }>('GET', `/recordings?callId=${callId}`)).body.recordings).toEqual([recording]);
    expect((await w.api.request<{ recordings: Recording[] }>('GET', '/recordings')).body.recordings.map((r) => r.id)).toEqual([id]);
    expect((await w.api.request<RecordingBody>('GET', `/recordings/${id}`)).body.recording).toEqual(recording);
    expect((await w.api.request<{ recordings: Recording[] }>('GET', '/recordings?callId=bc_other')).body.recordings).toEqual([]);
    expect((await start(w, callId)).status).toBe(201);
  });

  it('downloads by byte range: 206 with Content-Range, a suffix, the end clipped, 416 past the end', async () => {
    const w = await registeredWorld({ toneMs: 60_000 }, { media: 'werift' });
    const { callId } = await talkingCall(w);
    const id = (await start(w, callId)).body.recording.id;
    await waitFor(async () => ((await w.api.inspect(callId)).media?.packetsToBrowser ?? 0) > 60 || undefined, 'a while of conversation');
    await stop(w, callId, id);
    const whole = Buffer.from(await (await download(w, `/recordings/${id}/audio`)).arrayBuffer());
    const size = whole.length;

    const first = await download(w, `/recordings/${id}/audio`, { Range: 'bytes=0-43' });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe(`bytes 0-43/${size}`);
    expect(first.headers.get('content-length')).toBe('44');
    expect(Buffer.from(await first.arrayBuffer())).toEqual(whole.subarray(0, 44));

    const middle = await download(w, `/recordings/${id}/audio`, { Range: 'bytes=100-199' });
    expect(Buffer.from(await middle.arrayBuffer())).toEqual(whole.subarray(100, 200));

    const suffix = await download(w, `/recordings/${id}/audio`, { Range: 'bytes=-10' });
    expect(suffix.headers.get('content-range')).toBe(`bytes ${size - 10}-${size - 1}/${size}`);
    expect(Buffer.from(await suffix.arrayBuffer())).toEqual(whole.subarray(size - 10));

    const clipped = await download(w, `/recordings/${id}/audio`, { Range: `bytes=${size - 4}-${size + 1000}` });
    expect({ status: clipped.status, range: clipped.headers.get('content-range') }).toEqual({ status: 206, range: `bytes ${size - 4}-${size - 1}/${size}` });
    await clipped.arrayBuffer();

    const past = await download(w, `/recordings/${id}/audio`, { Range: `bytes=${size}-` });
    expect({ status: past.status, range: past.headers.get('content-range') }).toEqual({ status: 416, range: `bytes */${size}` });
    expect(await past.json()).toMatchObject({ code: 'range_not_satisfiable', error: expect.any(String) });

    const ignored = await download(w, `/recordings/${id}/audio`, { Range: 'bytes=0-1,4-5' });
    expect(ignored.status).toBe(200);
    expect(Buffer.from(await ignored.arrayBuffer())).toEqual(whole);
  });

  it('a call that ends while recording completes its recording with call_ended', async () => {
    const w = await registeredWorld({ toneMs: 60_000 }, { media: 'werift' });
    const { callId } = await talkingCall(w);
    const id = (await start(w, callId)).body.recording.id;
    await w.api.hangup(callId);
    await ended(w, callId);
    const recording = (await w.api.request<RecordingBody>('GET', `/recordings/${id}`)).body.recording;
    expect(recording).toMatchObject({ state: 'completed', stopReason: 'call_ended' });
    expect((await stop(w, callId, id)).body.code).toBe('recording_not_running');
    expect((await start(w, callId)).body.code).toBe('call_ended');
    expect((await download(w, `/recordings/${id}/audio`)).status).toBe(200);
  });

  it('an Idempotency-Key replays the original start instead of starting another', async () => {
    const w = await registeredWorld({ toneMs: 60_000 }, { media: 'werift' });
    const { callId } = await talkingCall(w);
    const post = (path: string) => fetch(`${w.sim.baseUrl}/v1/voice${path}`, { method: 'POST', headers: { 'X-Api-Key': SIM_TEST_KEY, 'Content-Type': 'application/json', 'Idempotency-Key': 'rec-once' }, body: '{}' });
    const first = await post(`/calls/${callId}/recordings`);
    const again = await post(`/calls/${callId}/recordings`);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as RecordingBody).recording.id).toBe(((await first.json()) as RecordingBody).recording.id);
    expect((await w.api.request<{ recordings: Recording[] }>('GET', `/recordings?callId=${callId}`)).body.recordings).toHaveLength(1);
  });
});

describe('recording a queued caller bridged to an agent', () => {
  it('records the generic call by its id, the caller tone in it', async () => {
    const w = await registeredWorld({ toneMs: 60_000 }, { media: 'werift' });
    const queue = await w.api.request<{ queue: { id: string } }>('POST', '/queues', { name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: 'http://127.0.0.1:9/voice/queue-events' });
    const caller = await w.api.control<{ call: { id: string } }>('POST', '/inbound', { queueId: queue.body.queue.id, from: '+12025550121', to: '+12025550150' });
    const callId = caller.body.call.id;
    const invited = w.client.nextInvitation();
    expect((await w.api.request('POST', `/queues/${queue.body.queue.id}/dequeue`, { connectTo: w.session.agentId })).status).toBe(200);
    expect((await start(w, callId)).body.code).toBe('call_not_answered');
    await (await invited).accept();
    await waitFor(async () => ((await w.api.request<{ call: { state: string } }>('GET', `/calls/${callId}`)).body.call.state === 'established') || undefined, 'the caller to be established');
    const started = await start(w, callId);
    expect(started.status).toBe(201);
    await waitFor(async () => ((await w.api.control<{ media: { packetsToBrowser: number } | null }>('GET', `/calls/${callId}`)).body.media?.packetsToBrowser ?? 0) > 50 || undefined, 'the caller tone to play');
    const stopped = await stop(w, callId, started.body.recording.id);
    expect(stopped.body.recording).toMatchObject({ callId, state: 'completed', stopReason: 'stopped' });
    const wav = readWav(Buffer.from(await (await download(w, `/recordings/${started.body.recording.id}/audio`)).arrayBuffer()));
    expect(peakAmplitudeAt(wav.samples, 440)).toBeGreaterThan(2000);
  });
});

describe('record: true at creation (spec 2.6)', () => {
  it('records from the answer to the end of the call', async () => {
    const w = await registeredWorld({ toneMs: 1000 }, { media: 'werift' });
    const invited = w.client.nextInvitation();
    const placed = await w.api.request<{ call: { id: string; record: boolean } }>('POST', '/browser-calls', { sessionId: w.session.id, from: '+12025550199', to: '+12025550100', record: true });
    expect(placed.body.call.record).toBe(true);
    const callId = placed.body.call.id;
    const invitation = await invited;
    await invitation.accept();
    await w.api.waitForCall(callId, (call) => call.state === 'connected', 'the call to connect');
    await waitFor(async () => ((await w.api.inspect(callId)).media?.packetsToBrowser ?? 0) > 40 || undefined, 'the tone to play');
    await w.api.hangup(callId);
    await ended(w, callId);
    const [recording] = (await w.api.request<{ recordings: Recording[] }>('GET', `/recordings?callId=${callId}`)).body.recordings;
    expect(recording).toMatchObject({ callId, state: 'completed', startedBy: 'record_on_create', stopReason: 'call_ended' });
    const wav = readWav(Buffer.from(await (await download(w, `/recordings/${recording?.id ?? ''}/audio`)).arrayBuffer()));
    expect(wav.samples.length).toBe(((recording?.durationMs ?? 0) / 1000) * 8000);
    expect(peakAmplitudeAt(wav.samples, 440)).toBeGreaterThan(2000);
  });
});
