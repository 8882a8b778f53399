// @vitest-environment happy-dom
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VoiceBrowserError } from '../../lib/errors.js';
import type { BrowserCall } from '../../lib/types.js';
import { httpError, networkError, type Operation } from '../support/fake-backend.js';
import type { FakeInvite } from '../support/fake-sip.js';
import { CALL, setup, type World } from '../support/helper-world.js';

/**
 * Property test (issue 4): random sequences of user actions and faults against a scripted backend and SIP
 * peer; after every step the helper's promises of spec 3.2, 4.7 and 7 must hold.
 */

type Fault = 'network' | 'drop' | 'server_error' | 'rate_limited' | 'refused' | 'delay';

type Action =
  | { kind: 'connect' }
  | { kind: 'disconnect' }
  | { kind: 'renew' }
  | { kind: 'start'; retry: boolean; double: boolean }
  | { kind: 'hangup'; double: boolean }
  | { kind: 'advance'; ms: number }
  | { kind: 'fault'; op: Operation; fault: Fault; delayMs: number }
  | { kind: 'service'; state: 'dialing_recipient' | 'connected' | 'ending' | 'ended' | 'failed' }
  | { kind: 'invite'; which: 'latest' | 'stranger' }
  | { kind: 'bye' }
  | { kind: 'socket'; event: 'drop' | 'back' | 'lost' }
  | { kind: 'mute'; on: boolean }
  | { kind: 'dtmf'; digit: string };

/** The oracle, independent of the library's own rule: the service's record says both legs are down. */
const isTerminal = (call: BrowserCall): boolean => call.busy === false;

const OPS: Operation[] = ['createSession', 'createCall', 'getCall', 'hangupCall', 'endSession', 'getCurrentSession'];

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'connect' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'disconnect' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'renew' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('start' as const), retry: fc.boolean(), double: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hangup' as const), double: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 4000 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fault' as const),
      op: fc.constantFrom(...OPS),
      fault: fc.constantFrom<Fault>('network', 'drop', 'server_error', 'rate_limited', 'refused', 'delay'),
      delayMs: fc.integer({ min: 10, max: 3000 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('service' as const), state: fc.constantFrom('dialing_recipient', 'connected', 'ending', 'ended', 'failed') as fc.Arbitrary<'connected'> }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('invite' as const), which: fc.constantFrom('latest', 'stranger') as fc.Arbitrary<'latest'> }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'bye' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('socket' as const), event: fc.constantFrom('drop', 'back', 'lost') as fc.Arbitrary<'drop'> }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('mute' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dtmf' as const), digit: fc.constantFrom('1', '#', 'A', 'x') }) },
);

/** What the user asked for, counted, so the requests the helper made can be held against it. */
interface Asked {
  starts: Map<string, number>;
  hangups: number;
  sessions: number;
  keys: number;
  invites: FakeInvite[];
}

function scriptFault(world: World, op: Operation, fault: Fault, delayMs: number): void {
  const { backend, clock } = world;
  if (fault === 'network') backend.fail(op, networkError());
  if (fault === 'drop') backend.drop(op);
  if (fault === 'server_error') backend.fail(op, httpError(503, 'provider_error'));
  if (fault === 'rate_limited') backend.fail(op, httpError(429, 'rate_limited', 2000));
  if (fault === 'refused') backend.fail(op, httpError(403, 'compliance_dnc'));
  if (fault === 'delay') {
    const gate = backend.hold(op);
    clock.setTimeout(() => gate.release(), delayMs);
  }
}

const quiet = (promise: Promise<unknown>) => void promise.catch(() => undefined);

async function perform(world: World, asked: Asked, step: Action): Promise<void> {
  const { voice, backend, sip, clock } = world;
  const latest = [...backend.calls.values()].at(-1);
  switch (step.kind) {
    case 'connect':
      if (voice.status().connection === 'disconnected' && !voice.status().session) asked.sessions++;
      quiet(voice.connect());
      break;
    case 'disconnect':
      // disconnect() hangs up an active call: one hangup it may send.
      asked.hangups++;
      quiet(voice.disconnect());
      break;
    case 'renew':
      asked.sessions++;
      quiet(voice.renew());
      break;
    case 'start': {
      const attempt = voice.status().attempt;
      const key = step.retry && attempt ? attempt.idempotencyKey : `key-${++asked.keys}`;
      const input = step.retry && attempt ? attempt.input : CALL;
      for (let i = 0; i < (step.double ? 2 : 1); i++) {
        asked.starts.set(key, (asked.starts.get(key) ?? 0) + 1);
        quiet(voice.startCall(input, { idempotencyKey: key }));
      }
      break;
    }
    case 'hangup':
      asked.hangups += step.double ? 2 : 1;
      quiet(voice.hangup());
      if (step.double) quiet(voice.hangup());
      break;
    case 'advance':
      await clock.advance(step.ms);
      break;
    case 'fault':
      scriptFault(world, step.op, step.fault, step.delayMs);
      break;
    case 'service':
      // The service moves its newest live call on; a terminal call never comes back to life.
      if (latest && !isTerminal(latest)) backend.setCall(latest.id, { state: step.state });
      break;
    case 'invite':
      if (sip.links.length > 0) asked.invites.push(sip.invite(step.which === 'latest' && latest ? latest.id : 'call-stranger'));
      break;
    case 'bye':
      if (sip.links.length > 0) sip.events.onSessionEnded(latest?.id);
      break;
    case 'socket':
      if (sip.links.length === 0) break;
      if (step.event === 'drop') sip.events.onReconnecting();
      if (step.event === 'back') sip.events.onReconnected();
      if (step.event === 'lost') sip.events.onDisconnected(new VoiceBrowserError('connection_failed', 'gave up'));
      break;
    case 'mute':
      voice.mute(step.on);
      break;
    case 'dtmf':
      quiet(voice.sendDtmf(step.digit));
      break;
  }
  await clock.flush();
}

function checkInvariants(world: World, asked: Asked): void {
  const { voice, backend } = world;
  const status = voice.status();
  const createRequests = backend.requestsOf('createCall');

  // No mutation is ever retried by the helper: each request answers one user action (spec 4.7, 7).
  for (const [key, count] of asked.starts) {
    expect(createRequests.filter((r) => r.idempotencyKey === key).length, `createCall with ${key}`).toBeLessThanOrEqual(count);
  }
  expect(backend.requestsOf('hangupCall').length).toBeLessThanOrEqual(asked.hangups);
  expect(backend.requestsOf('createSession').length).toBeLessThanOrEqual(asked.sessions);
  // Never two calls for one intent: one call per key at most (the fake replays a key as the service does).
  expect(backend.calls.size).toBeLessThanOrEqual(new Set(createRequests.map((r) => r.idempotencyKey)).size);

  // Never two reads in flight (spec 4.9: one poller).
  expect(backend.maxReadsInFlight).toBeLessThanOrEqual(1);

  // busy is false only when a terminal read proved every call it knew of over (spec 3.2).
  if (!status.busy) {
    const terminalIds = new Set(backend.delivered.filter(isTerminal).map((c) => c.id));
    for (const id of new Set(backend.delivered.map((c) => c.id))) expect(terminalIds.has(id), `busy false before a terminal read of ${id}`).toBe(true);
    for (const call of backend.calls.values()) expect(isTerminal(call), `busy false while ${call.id} is ${call.state} at the service`).toBe(true);
  }

  // connected only when the service said so; the call shown is one the service delivered.
  if (status.call) {
    const shown: BrowserCall = status.call;
    expect(backend.delivered.some((c) => c.id === shown.id && c.state === shown.state && c['revision'] === shown['revision'])).toBe(true);
  }

  // An INVITE is answered only for a call the helper itself asked for.
  for (const invite of asked.invites) {
    if (invite.outcome === 'accepted') expect(invite.callId && backend.calls.has(invite.callId), `accepted ${invite.callId}`).toBeTruthy();
  }
}

describe('the helper under random actions and faults', () => {
  it('never retries a mutation, never drops busy early, never polls twice, answers only its own call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 30 }), async (steps) => {
        const world = setup();
        const asked: Asked = { starts: new Map(), hangups: 0, sessions: 0, keys: 0, invites: [] };
        for (const step of steps) {
          await perform(world, asked, step);
          checkInvariants(world, asked);
        }
        // Whatever happened, disconnect() leaves nothing running once the service has ended the call.
        asked.hangups++;
        const done = world.voice.disconnect().catch(() => undefined);
        for (const call of world.backend.calls.values()) if (!isTerminal(call)) world.backend.setCall(call.id, { state: 'ended' });
        await world.clock.advance(20_000);
        await done;
        checkInvariants(world, asked);
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 3000) },
    );
  });
});
