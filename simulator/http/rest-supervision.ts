import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { HttpError } from '../../contract/http-error.js';
import { emptyInput, parseIdempotencyKey, parseInput, readJsonBody } from '../../contract/voice-input.js';
import type { IdempotencyStore } from './idempotency.js';
import { idempotent, ownerWith, type RestEnv } from './rest-guard.js';
import type { VoiceService } from '../service/voice-service.js';
import { byteRange } from '../media/wav.js';

/**
 * The REST routes of supervision and recording (spec 4.8 names the operations, not their paths; these are the
 * simulator's, docs/simulator.md), under the voice base with the rules of every route
 * (`createRestApp`): the key's scope (spec 5.6: monitoring and managing recordings need `voice_calls.write`, reading
 * and downloading them `voice_calls.read`), the error shape of spec 2.2, and the key's ownership of what it
 * creates. Supervision itself is `Supervision`'s.
 *
 * | route | answers |
 * |---|---|
 * | `POST /calls/{id}/monitor {to}` | `201 {call}`: the monitor leg ringing agent `to` |
 * | `POST /calls/{id}/recordings {}` | `201 {recording}`: recording from now |
 * | `POST /calls/{id}/recordings/{rid}/stop {}` | `200 {recording}`, completed |
 * | `GET /recordings?callId=` | `200 {recordings}`, oldest first |
 * | `GET /recordings/{rid}` | `200 {recording}` |
 * | `GET /recordings/{rid}/audio` | `200` or, for one `Range`, `206` `audio/wav`; `416` for a range past the end |
 *
 * The two creating routes take an optional `Idempotency-Key`, as placing a call does (spec 4.8, 3.4): a retry with
 * the same key and body answers the original.
 */

/** `POST /calls/{id}/monitor`: the supervisor's agent (spec 4.8 "body `to`"). */
const monitorInput = z.strictObject({ to: z.string().min(1).max(128) });

/** Runs a creating route under its Idempotency-Key when the request carries one, bound to the concrete path. */
async function maybeIdempotent(store: IdempotencyStore, c: Context<RestEnv>, input: unknown, work: () => Promise<object>): Promise<Response> {
  const header = c.req.header('idempotency-key');
  if (header === undefined) return c.json(await work(), 201);
  const key = parseIdempotencyKey(header);
  return idempotent(store, c, key, `POST ${c.req.path}`, input, async () => ({ status: 201, body: await work() }));
}

/** The WAV file, whole or the one range asked for (RFC 9110 section 14). */
function audioAnswer(file: Buffer, id: string, range: string | undefined): Response {
  const headers: Record<string, string> = { 'Content-Type': 'audio/wav', 'Accept-Ranges': 'bytes', 'Content-Disposition': `attachment; filename="${id}.wav"` };
  const wanted = byteRange(range, file.length);
  if (wanted === 'unsatisfiable') {
    throw new HttpError(416, 'range_not_satisfiable', `the recording has ${file.length} bytes; ask for a range within them`, { 'Content-Range': `bytes */${file.length}` });
  }
  if (!wanted) return new Response(new Uint8Array(file), { status: 200, headers: { ...headers, 'Content-Length': String(file.length) } });
  const part = file.subarray(wanted.start, wanted.end + 1);
  headers['Content-Range'] = `bytes ${wanted.start}-${wanted.end}/${file.length}`;
  return new Response(new Uint8Array(part), { status: 206, headers: { ...headers, 'Content-Length': String(part.length) } });
}

/** Monitor and recording routes of the REST app (spec 4.8: monitor a call, start and stop recording). */
export function supervisionRoutes(app: Hono<RestEnv>, service: VoiceService, idempotency: IdempotencyStore): void {
  const { supervision } = service;
  app.post('/calls/:id/monitor', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    const { to } = parseInput(monitorInput, await readJsonBody(c.req.raw));
    return maybeIdempotent(idempotency, c, { to }, async () => ({ call: await supervision.monitor(owner, c.req.param('id'), to) }));
  });
  app.post('/calls/:id/recordings', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    // spec 2.6, 5.5: recording is honoured only for an account that supports it; a product not enabled is a 403.
    if (!c.get('principal').account.recordingSupported) throw new HttpError(403, 'recording_not_enabled', 'this account does not support recording');
    return maybeIdempotent(idempotency, c, {}, async () => ({ recording: supervision.startRecording(owner, c.req.param('id')) }));
  });
  app.post('/calls/:id/recordings/:rid/stop', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    return c.json({ recording: supervision.stopRecording(owner, c.req.param('id'), c.req.param('rid')) });
  });
  app.get('/recordings', (c) => c.json({ recordings: supervision.recordings.list(ownerWith(c, 'voice_calls.read'), c.req.query('callId')) }));
  app.get('/recordings/:rid', (c) => c.json({ recording: supervision.recordings.get(ownerWith(c, 'voice_calls.read'), c.req.param('rid')) }));
  app.get('/recordings/:rid/audio', (c) => {
    const owner = ownerWith(c, 'voice_calls.read');
    return audioAnswer(supervision.recordings.file(owner, c.req.param('rid')), c.req.param('rid'), c.req.header('range'));
  });
}
