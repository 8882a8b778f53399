import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expectAnswer, KEYS, RestWorld, type ApiRequest, type Expected } from './rest-support.js';

/** Conformance of the simulated service to the input rules of spec 2.6 and 8: every rejection a 400 with a code. */

let world: RestWorld;
let sessionId: string;
beforeEach(async () => {
  world = new RestWorld();
  sessionId = await world.openSession('alice');
});
afterEach(() => world.close());

let keyCounter = 0;
const call = (fields: Record<string, unknown>, omit: string[] = []): ApiRequest => {
  const body: Record<string, unknown> = { sessionId, from: '+12025550199', to: '+12025550100', ...fields };
  for (const name of omit) delete body[name];
  keyCounter += 1;
  return { path: '/browser-calls', headers: { 'Idempotency-Key': `input-${keyCounter}` }, body };
};
const agent = (fields: Record<string, unknown>, omit: string[] = []): ApiRequest => {
  const body: Record<string, unknown> = { name: 'Bob', type: 'webrtc', externalSubject: 'bob', ...fields };
  for (const name of omit) delete body[name];
  return { path: '/agents', body };
};

/** `count` pairs `k0`, `k1`, ... whose values are `value`. */
const pairs = (count: number, value = 'v'): Record<string, string> => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, value]));

/** customData whose compact UTF-8 JSON is exactly `bytes` long, in pairs of at most 1,024 characters. */
function customDataOfBytes(bytes: number): Record<string, string> {
  const data: Record<string, string> = {};
  for (let i = 0; ; i += 1) {
    const size = new TextEncoder().encode(JSON.stringify(data)).length;
    const pairCost = (i === 0 ? 0 : 1) + `"k${i}":""`.length;
    if (size + pairCost + 1024 >= bytes) {
      data[`k${i}`] = 'x'.repeat(bytes - size - pairCost);
      return data;
    }
    data[`k${i}`] = 'x'.repeat(1024);
  }
}

interface Case {
  rule: string;
  request: () => ApiRequest;
  expected: Expected;
}

const invalid = (code: string): Expected => ({ status: 400, code });

const cases: Case[] = [
  { rule: '2.6: a from that is not E.164 is 400 invalid_phone', request: () => call({ from: '2025550199' }), expected: invalid('invalid_phone') },
  { rule: '2.6: a to that is not E.164 is 400 invalid_phone', request: () => call({ to: '+0202555010' }), expected: invalid('invalid_phone') },
  { rule: '2.6: a to of 16 digits is 400 invalid_phone', request: () => call({ to: '+1202555010012345' }), expected: invalid('invalid_phone') },
  { rule: '2.6: a to that is a number, not a string, is 400 invalid_phone', request: () => call({ to: 12025550100 }), expected: invalid('invalid_phone') },
  { rule: '7: no from is 400 missing_from', request: () => call({}, ['from']), expected: invalid('missing_from') },
  { rule: '7: no to is 400 missing_to', request: () => call({}, ['to']), expected: invalid('missing_to') },
  { rule: '7: no sessionId is 400 missing_fields', request: () => call({}, ['sessionId']), expected: invalid('missing_fields') },
  { rule: '2.6: a field the input does not have is 400 invalid_input', request: () => call({ agentId: 'ag_x' }), expected: invalid('invalid_input') },
  { rule: '2.6: maxDurationSeconds 0 is 400 invalid_input', request: () => call({ maxDurationSeconds: 0 }), expected: invalid('invalid_input') },
  { rule: '2.6: maxDurationSeconds 1.5 is 400 invalid_input', request: () => call({ maxDurationSeconds: 1.5 }), expected: invalid('invalid_input') },
  { rule: '2.6: maxDurationSeconds as a string is 400 invalid_input', request: () => call({ maxDurationSeconds: '60' }), expected: invalid('invalid_input') },
  { rule: '2.6: maxDurationSeconds 60 is accepted', request: () => call({ maxDurationSeconds: 60 }), expected: { status: 202 } },
  { rule: '2.6: record that is not a boolean is 400 invalid_input', request: () => call({ record: 'yes' }), expected: invalid('invalid_input') },
  { rule: '2.6: customData of 32 pairs is accepted', request: () => call({ customData: pairs(32) }), expected: { status: 202 } },
  { rule: '2.6: customData of 33 pairs is 400 metadata_too_large', request: () => call({ customData: pairs(33) }), expected: invalid('metadata_too_large') },
  { rule: '2.6: a customData key of 128 characters is accepted', request: () => call({ customData: { ['k'.repeat(128)]: 'v' } }), expected: { status: 202 } },
  { rule: '2.6: a customData key of 129 characters is 400 invalid_metadata', request: () => call({ customData: { ['k'.repeat(129)]: 'v' } }), expected: invalid('invalid_metadata') },
  { rule: '2.6: an empty customData key is 400 invalid_metadata', request: () => call({ customData: { '': 'v' } }), expected: invalid('invalid_metadata') },
  { rule: '2.6: a customData key starting with $ is 400 invalid_metadata', request: () => call({ customData: { $secret: 'v' } }), expected: invalid('invalid_metadata') },
  { rule: '2.6: a customData key with NUL is 400 invalid_metadata', request: () => call({ customData: { 'a\u0000b': 'v' } }), expected: invalid('invalid_metadata') },
  { rule: '2.6: a customData key with $ inside is accepted', request: () => call({ customData: { 'price$': 'v' } }), expected: { status: 202 } },
  { rule: '2.6: a customData value of 1,024 characters is accepted', request: () => call({ customData: { note: 'v'.repeat(1024) } }), expected: { status: 202 } },
  { rule: '2.6: a customData value of 1,024 characters outside the BMP is accepted', request: () => call({ customData: { note: '😀'.repeat(1024) } }), expected: { status: 202 } },
  { rule: '2.6: a customData value of 1,025 characters is 400 invalid_metadata', request: () => call({ customData: { note: 'v'.repeat(1025) } }), expected: invalid('invalid_metadata') },
  { rule: '2.6: a customData value that is not a string is 400 invalid_metadata', request: () => call({ customData: { n: 1 } }), expected: invalid('invalid_metadata') },
  { rule: '2.6: customData that is an array is 400 invalid_metadata', request: () => call({ customData: ['a'] }), expected: invalid('invalid_metadata') },
  { rule: '2.6: customData of exactly 8,192 bytes of compact JSON is accepted', request: () => call({ customData: customDataOfBytes(8192) }), expected: { status: 202 } },
  { rule: '2.6: customData of 8,193 bytes of compact JSON is 400 metadata_too_large', request: () => call({ customData: customDataOfBytes(8193) }), expected: invalid('metadata_too_large') },
  {
    rule: '2.6: customData is measured in UTF-8 bytes: 5 values of 1,024 "é" are 400 metadata_too_large',
    request: () => call({ customData: pairs(5, 'é'.repeat(1024)) }),
    expected: invalid('metadata_too_large'),
  },
  { rule: '2.6, 8: an externalSubject of 200 characters is accepted', request: () => agent({ externalSubject: 's'.repeat(200) }), expected: { status: 201 } },
  { rule: '2.6, 8: an externalSubject of 200 characters outside the BMP is accepted', request: () => agent({ externalSubject: '😀'.repeat(200) }), expected: { status: 201 } },
  { rule: '2.6, 8: POST /agents with an externalSubject of 201 characters is 400 field_too_long', request: () => agent({ externalSubject: 's'.repeat(201) }), expected: invalid('field_too_long') },
  {
    rule: '2.6, 8: POST /browser-sessions with an externalSubject of 201 characters is 400 field_too_long',
    request: () => ({ path: '/browser-sessions', headers: { 'Idempotency-Key': 's-long' }, body: { externalSubject: 's'.repeat(201) } }),
    expected: invalid('field_too_long'),
  },
  { rule: '2.6, 8: GET /browser-sessions with an externalSubject of 201 characters is 400 field_too_long', request: () => ({ path: `/browser-sessions?externalSubject=${'s'.repeat(201)}` }), expected: invalid('field_too_long') },
  { rule: '4.7: GET /browser-sessions without externalSubject is 400 missing_fields', request: () => ({ path: '/browser-sessions' }), expected: invalid('missing_fields') },
  { rule: '2.6: an empty externalSubject is 400 invalid_input', request: () => agent({ externalSubject: '' }), expected: invalid('invalid_input') },
  { rule: '7: POST /agents without name is 400 missing_name', request: () => agent({}, ['name']), expected: invalid('missing_name') },
  { rule: '4.7: POST /agents of a type other than webrtc is 400 invalid_input', request: () => agent({ type: 'sip' }), expected: invalid('invalid_input') },
  { rule: '4.7: POST /agents without type is 400 missing_fields', request: () => agent({}, ['type']), expected: invalid('missing_fields') },
  { rule: '4.7: a body that is not JSON is 400 invalid_input', request: () => ({ path: '/browser-calls', headers: { 'Idempotency-Key': 'broken' }, body: '{"sessionId": ' }), expected: invalid('invalid_input') },
  { rule: '4.7: a JSON array for a body is 400 invalid_input', request: () => ({ path: '/browser-calls', headers: { 'Idempotency-Key': 'array' }, body: [] }), expected: invalid('invalid_input') },
  { rule: '4.7: DELETE /browser-sessions/{id} with a nonempty body is 400 invalid_input', request: () => ({ method: 'DELETE', path: `/browser-sessions/${sessionId}`, body: { force: true } }), expected: invalid('invalid_input') },
  { rule: '4.7: POST /browser-calls/{id}/hangup with a nonempty body is 400 invalid_input', request: () => ({ path: '/browser-calls/bc_x/hangup', body: { reason: 'x' } }), expected: invalid('invalid_input') },
  {
    rule: '8: a body over 5 MB is 413 payload_too_large',
    request: () => ({ path: '/browser-calls', headers: { 'Idempotency-Key': 'huge' }, body: JSON.stringify({ pad: 'x'.repeat(5 * 1024 * 1024) }) }),
    expected: { status: 413, code: 'payload_too_large' },
  },
];

describe('spec 2.6, 8: input', () => {
  it.each(cases)('$rule', async ({ request, expected }) => {
    expectAnswer(await world.send(request()), expected);
  });

  it('2.6: record is not honoured when the account does not support recording', async () => {
    const response = await world.startCall(sessionId, 'rec-1', KEYS.main, { record: true });
    expectAnswer(response, { status: 202 });
    expect(response.json['call']).toMatchObject({ record: false });
  });

  it('2.6: record is passed to the service when the account supports recording, and only asked for then', async () => {
    const createCall = vi.spyOn(world.service, 'createCall');
    const recording = await world.openSession('rita', KEYS.recording);
    expectAnswer(await world.startCall(recording, 'rec-1', KEYS.recording, { record: true }), { status: 202 });
    expectAnswer(await world.startCall(sessionId, 'rec-1', KEYS.main, { record: true }), { status: 202 });
    expect(createCall.mock.calls.map(([owner, input]) => [owner, input.record])).toEqual([
      [KEYS.recording, true],
      [KEYS.main, false],
    ]);
  });

  it('2.6: the customData of an admitted call is kept as sent', async () => {
    const customData = { ticket: '42', 'name with spaces': 'Zoë 😀' };
    const response = await world.startCall(sessionId, 'data-1', KEYS.main, { customData });
    expectAnswer(response, { status: 202 });
    expect(response.json['call']).toMatchObject({ customData });
  });
});
