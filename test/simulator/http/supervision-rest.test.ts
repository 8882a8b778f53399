import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectAnswer, KEYS, RestWorld, type ApiRequest, type Expected } from './rest-support.js';

/**
 * The refusals of monitoring and recording (spec 4.8 operations on the simulator's paths; scopes of spec 5.6; the
 * error shape of spec 2.2) that need no conversation: each test has one call of the recording account's key
 * that rings a page which never answers, and one of the main account's key (which does not support recording).
 * What a call in progress allows is in monitor.test.ts and recording.test.ts, over real SIP and audio.
 */

interface Ids {
  /** A call of KEYS.recording, ringing its page. */
  callId: string;
  /** A call of KEYS.main, ringing its page. */
  mainCallId: string;
  /** The webrtc agent of KEYS.recording's session. */
  agentId: string;
}

interface Case {
  rule: string;
  request: (ids: Ids) => ApiRequest;
  expected: Expected;
}

let world: RestWorld;
let ids: Ids;

const idOf = (json: Record<string, unknown>, field: string) => String((json[field] as { id: string }).id);

beforeEach(async () => {
  world = new RestWorld();
  const sessionId = await world.openSession('rita', KEYS.recording);
  const call = await world.startCall(sessionId, 'call-1', KEYS.recording);
  const mainCall = await world.startCall(await world.openSession('alice'), 'call-2');
  const session = await world.send({ key: KEYS.recording, path: `/browser-sessions/${sessionId}` });
  ids = { callId: idOf(call.json, 'call'), mainCallId: idOf(mainCall.json, 'call'), agentId: String((session.json['session'] as { agentId: string }).agentId) };
});
afterEach(() => world.close());

const monitor = (callId: string, body: unknown = { to: 'ag_supervisor' }, key: string = KEYS.recording): ApiRequest => ({ key, path: `/calls/${callId}/monitor`, body });
const record = (callId: string, key: string = KEYS.recording, body: unknown = {}): ApiRequest => ({ key, path: `/calls/${callId}/recordings`, body });

const cases: Case[] = [
  { rule: '5.6: monitoring needs voice_calls.write', request: ({ mainCallId }) => monitor(mainCallId, undefined, KEYS.readOnly), expected: { status: 403, code: 'insufficient_scope' } },
  { rule: '5.6: starting a recording needs voice_calls.write', request: ({ mainCallId }) => record(mainCallId, KEYS.readOnly), expected: { status: 403, code: 'insufficient_scope' } },
  {
    rule: '5.6: stopping a recording needs voice_calls.write',
    request: ({ mainCallId }) => ({ key: KEYS.readOnly, path: `/calls/${mainCallId}/recordings/rec_x/stop`, body: {} }),
    expected: { status: 403, code: 'insufficient_scope' },
  },
  { rule: '5.6: listing recordings needs voice_calls.read', request: () => ({ key: KEYS.writeOnly, path: '/recordings' }), expected: { status: 403, code: 'insufficient_scope' } },
  { rule: '5.6: reading a recording needs voice_calls.read', request: () => ({ key: KEYS.writeOnly, path: '/recordings/rec_x' }), expected: { status: 403, code: 'insufficient_scope' } },
  { rule: '5.6: downloading a recording needs voice_calls.read', request: () => ({ key: KEYS.writeOnly, path: '/recordings/rec_x/audio' }), expected: { status: 403, code: 'insufficient_scope' } },
  { rule: '4.8: monitoring an unknown call is 404 not_found', request: () => monitor('bc_nope'), expected: { status: 404, code: 'not_found' } },
  { rule: "4.7: monitoring another key's call is the same 404", request: ({ mainCallId }) => monitor(mainCallId), expected: { status: 404, code: 'not_found' } },
  { rule: "4.7: recording another key's call is the same 404", request: ({ mainCallId }) => record(mainCallId), expected: { status: 404, code: 'not_found' } },
  { rule: '4.8: monitoring a call not answered yet is 409 call_not_answered', request: ({ callId }) => monitor(callId), expected: { status: 409, code: 'call_not_answered' } },
  { rule: '4.8: recording a call not answered yet is 409 call_not_answered', request: ({ callId }) => record(callId), expected: { status: 409, code: 'call_not_answered' } },
  { rule: '4.8: a monitor without to is 400 missing_to', request: ({ callId }) => monitor(callId, {}), expected: { status: 400, code: 'missing_to' } },
  { rule: '4.8: a monitor with another field is 400 invalid_input', request: ({ callId }) => monitor(callId, { to: 'ag_x', listen: 'both' }), expected: { status: 400, code: 'invalid_input' } },
  { rule: '4.8: a recording start with a body is 400 invalid_input', request: ({ callId }) => record(callId, KEYS.recording, { format: 'mp3' }), expected: { status: 400, code: 'invalid_input' } },
  { rule: '2.6, 5.5: an account without recording is 403 recording_not_enabled', request: ({ mainCallId }) => record(mainCallId, KEYS.main), expected: { status: 403, code: 'recording_not_enabled' } },
  { rule: '4.8: stopping an unknown recording is 404 not_found', request: ({ callId }) => ({ key: KEYS.recording, path: `/calls/${callId}/recordings/rec_nope/stop`, body: {} }), expected: { status: 404, code: 'not_found' } },
  { rule: '4.8: an unknown recording is 404 not_found', request: () => ({ key: KEYS.recording, path: '/recordings/rec_nope' }), expected: { status: 404, code: 'not_found' } },
  { rule: '4.8: the audio of an unknown recording is 404 not_found', request: () => ({ key: KEYS.recording, path: '/recordings/rec_nope/audio' }), expected: { status: 404, code: 'not_found' } },
  { rule: '4.8: an Idempotency-Key over 128 characters is 400', request: ({ callId }) => ({ ...monitor(callId), headers: { 'Idempotency-Key': 'k'.repeat(129) } }), expected: { status: 400, code: 'idempotency_key_too_long' } },
];

describe('spec 4.8: monitor and recording refusals', () => {
  it.each(cases)('$rule', async ({ request, expected }) => {
    expectAnswer(await world.send(request(ids)), expected);
  });

  it('4.8: a call that is over can be neither monitored nor recorded: 409 call_ended', async () => {
    expect((await world.send({ key: KEYS.recording, path: `/browser-calls/${ids.callId}/hangup`, body: {} })).status).toBe(202);
    await expect.poll(async () => (await world.send({ key: KEYS.recording, path: `/browser-calls/${ids.callId}` })).json['call']).toMatchObject({ busy: false });
    expectAnswer(await world.send(monitor(ids.callId, { to: ids.agentId })), { status: 409, code: 'call_ended' });
    expectAnswer(await world.send(record(ids.callId)), { status: 409, code: 'call_ended' });
  });

  it('4.8: a key lists no recordings before it made any', async () => {
    const listed = await world.send({ key: KEYS.recording, path: `/recordings?callId=${ids.callId}` });
    expectAnswer(listed, { status: 200 });
    expect(listed.json).toEqual({ recordings: [] });
  });
});
