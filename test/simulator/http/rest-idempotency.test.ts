import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../../contract/http-error.js';
import { IdempotencyStore, RETENTION_MS } from '../../../simulator/http/idempotency.js';
import { expectAnswer, KEYS, RestWorld, type ApiRequest, type Expected } from './rest-support.js';

/** Conformance of the simulated service to spec 3.4 (idempotency key lifecycle), 4.7 and 8 (key limits). */

let world: RestWorld;
let sessionId: string;
beforeEach(async () => {
  world = new RestWorld();
  sessionId = await world.openSession('alice');
});
afterEach(() => world.close());

const callBody = (to = '+12025550100') => ({ sessionId, from: '+12025550199', to });
const sessionRequest = (headers: Record<string, string>): ApiRequest => ({ path: '/browser-sessions', headers, body: { externalSubject: 'alice' } });
const callRequest = (headers: Record<string, string>): ApiRequest => ({ path: '/browser-calls', headers, body: callBody() });

interface Case {
  rule: string;
  request: () => ApiRequest;
  expected: Expected;
}

const keyCases: Case[] = [
  { rule: '4.7: POST /browser-sessions without Idempotency-Key is 400 idempotency_key_invalid', request: () => sessionRequest({}), expected: { status: 400, code: 'idempotency_key_invalid' } },
  { rule: '4.7: POST /browser-sessions with a blank Idempotency-Key is 400 idempotency_key_invalid', request: () => sessionRequest({ 'Idempotency-Key': '   ' }), expected: { status: 400, code: 'idempotency_key_invalid' } },
  { rule: '4.7, 8: POST /browser-sessions with a 129-character key is 400 idempotency_key_too_long', request: () => sessionRequest({ 'Idempotency-Key': 'k'.repeat(129) }), expected: { status: 400, code: 'idempotency_key_too_long' } },
  { rule: '4.7, 8: POST /browser-sessions with a 128-character key is 201', request: () => sessionRequest({ 'Idempotency-Key': 'k'.repeat(128) }), expected: { status: 201 } },
  { rule: '7: an Idempotency-Key that is not printable ASCII is 400 idempotency_key_invalid', request: () => sessionRequest({ 'Idempotency-Key': 'a\tb' }), expected: { status: 400, code: 'idempotency_key_invalid' } },
  { rule: '4.7: POST /browser-calls without Idempotency-Key is 400 idempotency_key_invalid', request: () => callRequest({}), expected: { status: 400, code: 'idempotency_key_invalid' } },
  { rule: '4.7: POST /browser-calls with a blank Idempotency-Key is 400 idempotency_key_invalid', request: () => callRequest({ 'Idempotency-Key': '' }), expected: { status: 400, code: 'idempotency_key_invalid' } },
  { rule: '4.7, 8: POST /browser-calls with a 129-character key is 400 idempotency_key_too_long', request: () => callRequest({ 'Idempotency-Key': 'k'.repeat(129) }), expected: { status: 400, code: 'idempotency_key_too_long' } },
  { rule: '4.7, 8: POST /browser-calls with a 128-character key is 202', request: () => callRequest({ 'Idempotency-Key': 'k'.repeat(128) }), expected: { status: 202 } },
];

describe('spec 4.7, 8: the Idempotency-Key header', () => {
  it.each(keyCases)('$rule', async ({ request, expected }) => {
    expectAnswer(await world.send(request()), expected);
  });
});

describe('spec 3.4: the idempotency key lifecycle', () => {
  it('3.4: the same key and input replays the original 201 session verbatim, without a second session', async () => {
    const first = await world.send(sessionRequest({ 'Idempotency-Key': 's-1' }));
    expectAnswer(first, { status: 201, headers: { 'idempotent-replayed': null } });
    const again = await world.send(sessionRequest({ 'Idempotency-Key': 's-1' }));
    expectAnswer(again, { status: 201, headers: { 'idempotent-replayed': 'true' } });
    expect(again.text).toBe(first.text);
    const current = await world.send({ path: '/browser-sessions?externalSubject=alice' });
    expect(current.json['session']).toMatchObject({ id: (first.json['session'] as { id: string }).id });
  });

  it('3.4: the same key and input replays the original 202 call verbatim, even after the call changed', async () => {
    const first = await world.startCall(sessionId, 'c-1');
    expectAnswer(first, { status: 202 });
    const callId = (first.json['call'] as { id: string }).id;
    await world.send({ path: `/browser-calls/${callId}/hangup`, body: {} });
    const again = await world.startCall(sessionId, 'c-1');
    expectAnswer(again, { status: 202, headers: { 'idempotent-replayed': 'true' } });
    expect(again.text).toBe(first.text);
    expect(world.agent.invites.filter((invite) => invite.callId === callId)).toHaveLength(1);
  });

  it('3.4: the same input in another key order is the same input', async () => {
    expectAnswer(await world.send({ path: '/browser-calls', headers: { 'Idempotency-Key': 'c-1' }, body: { sessionId, from: '+12025550199', to: '+12025550100' } }), { status: 202 });
    const reordered = await world.send({ path: '/browser-calls', headers: { 'Idempotency-Key': 'c-1' }, body: `{"to":"+12025550100","from":"+12025550199","sessionId":"${sessionId}"}` });
    expectAnswer(reordered, { status: 202, headers: { 'idempotent-replayed': 'true' } });
  });

  it('3.4, 4.7: the same key with changed session input is 409 idempotency_conflict', async () => {
    await world.send({ path: '/agents', body: { name: 'Bob', type: 'webrtc', externalSubject: 'bob' } });
    expectAnswer(await world.send(sessionRequest({ 'Idempotency-Key': 's-1' })), { status: 201 });
    const changed = await world.send({ path: '/browser-sessions', headers: { 'Idempotency-Key': 's-1' }, body: { externalSubject: 'bob' } });
    expectAnswer(changed, { status: 409, code: 'idempotency_conflict' });
  });

  it('3.4, 4.7: the same key with changed call input is 409 idempotency_conflict', async () => {
    expectAnswer(await world.startCall(sessionId, 'c-1'), { status: 202 });
    expectAnswer(await world.startCall(sessionId, 'c-1', KEYS.main, { to: '+12025550101' }), { status: 409, code: 'idempotency_conflict' });
    expectAnswer(await world.startCall(sessionId, 'c-1', KEYS.main, { customData: { a: 'b' } }), { status: 409, code: 'idempotency_conflict' });
  });

  it('3.4, 8: a retry while the first request still runs is 409 idempotency_in_progress with Retry-After: 5', async () => {
    // Both reach the store before the first call's media offer (real I/O) is ready: one runs, one is told to wait.
    const answers = await Promise.all([world.startCall(sessionId, 'c-1'), world.startCall(sessionId, 'c-1')]);
    const [done, waiting] = answers[0].status === 202 ? answers : [answers[1], answers[0]];
    expectAnswer(done, { status: 202 });
    expectAnswer(waiting, { status: 409, code: 'idempotency_in_progress', headers: { 'retry-after': '5' } });
    // Retried after it finished, the key replays the call.
    expectAnswer(await world.startCall(sessionId, 'c-1'), { status: 202, headers: { 'idempotent-replayed': 'true' } });
  });

  it('3.4, 7: an ordinary non-2xx releases the key: it is reusable at once with other input', async () => {
    expectAnswer(await world.startCall(sessionId, 'c-1', KEYS.main, { to: '+12025550105' }), { status: 403, code: 'compliance_dnc' });
    expectAnswer(await world.startCall(sessionId, 'c-1'), { status: 202, headers: { 'idempotent-replayed': null } });
  });

  it('3.4, 5.11: keys are namespaced per API key: another key\'s request under the same key value runs on its own', async () => {
    const mine = await world.send(sessionRequest({ 'Idempotency-Key': 'shared' }));
    expectAnswer(mine, { status: 201 });
    await world.send({ key: KEYS.sibling, path: '/agents', body: { name: 'Alice', type: 'webrtc', externalSubject: 'alice' } });
    const theirs = await world.send({ ...sessionRequest({ 'Idempotency-Key': 'shared' }), key: KEYS.sibling });
    expectAnswer(theirs, { status: 201, headers: { 'idempotent-replayed': null } });
    expect((theirs.json['session'] as { id: string }).id).not.toBe((mine.json['session'] as { id: string }).id);
  });

  it('3.4: keys are namespaced per operation: a session key does not collide with a call key', async () => {
    await world.send({ path: '/agents', body: { name: 'Bob', type: 'webrtc', externalSubject: 'bob' } });
    expectAnswer(await world.send({ path: '/browser-sessions', headers: { 'Idempotency-Key': 'same' }, body: { externalSubject: 'bob' } }), { status: 201 });
    expectAnswer(await world.startCall(sessionId, 'same'), { status: 202, headers: { 'idempotent-replayed': null } });
  });

  it('3.4, 8: a cached answer is kept 24 hours, then the key is free again', async () => {
    await world.send({ path: '/agents', body: { name: 'Bob', type: 'webrtc', externalSubject: 'bob' } });
    expectAnswer(await world.send(sessionRequest({ 'Idempotency-Key': 's-1' })), { status: 201 });
    const bob = { path: '/browser-sessions', headers: { 'Idempotency-Key': 's-1' }, body: { externalSubject: 'bob' } };
    await world.clock.advance(RETENTION_MS - 1000);
    expectAnswer(await world.send(bob), { status: 409, code: 'idempotency_conflict' });
    await world.clock.advance(1000);
    expectAnswer(await world.send(bob), { status: 201, headers: { 'idempotent-replayed': null } });
  });
});

describe('IdempotencyStore', () => {
  it('3.4: answers 409 idempotency_in_progress while the work runs, then replays its 2xx', async () => {
    const store = new IdempotencyStore(() => 0);
    let finish: (value: { status: number; body: string }) => void = () => undefined;
    const first = store.run('key\nop', 'k', { a: 1 }, () => new Promise((resolve) => (finish = resolve)));
    const refusal = await store.run('key\nop', 'k', { a: 1 }, async () => ({ status: 201, body: '{}' })).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(HttpError);
    expect(refusal).toMatchObject({ status: 409, code: 'idempotency_in_progress', headers: { 'Retry-After': '5' } });
    finish({ status: 201, body: '{"n":1}' });
    await expect(first).resolves.toEqual({ status: 201, body: '{"n":1}', replayed: false });
    await expect(store.run('key\nop', 'k', { a: 1 }, async () => ({ status: 201, body: '{"n":2}' }))).resolves.toEqual({ status: 201, body: '{"n":1}', replayed: true });
  });

  it('3.4: a thrown rejection releases the key', async () => {
    const store = new IdempotencyStore(() => 0);
    await expect(store.run('ns', 'k', 1, async () => Promise.reject(new HttpError(409, 'browser_agent_busy', 'busy')))).rejects.toThrow('busy');
    await expect(store.run('ns', 'k', 2, async () => ({ status: 202, body: '{}' }))).resolves.toMatchObject({ replayed: false });
  });
});
