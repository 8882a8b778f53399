// @vitest-environment happy-dom
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECONCILE_READS } from '../../lib/runtime/reconcile.js';
import { VoiceBrowserError } from '../../lib/core/errors.js';
import { EXPECT_TRIES } from '../../lib/runtime/poller.js';
import type { BrowserCall } from '../../lib/core/types.js';
import { httpError, networkError, type Operation } from '../../lib/testing/fake-backend.js';
import type { FakeInvite } from '../../lib/testing/fake-sip.js';
import { CALL, setup, type World } from '../support/helper-world.js';

/**
 * Property test: random sequences of user actions, faults and service-side events against a
 * scripted backend and SIP peer; after every step the helper's promises of spec 3.2, 4.7 and 7 must hold.
 * `PROPERTY_RUNS` sets how many sequences run (default 3,000).
 */

/** `key_refused`: the service refused the server's key, which our proxy answers `403 browser_voice_unavailable`. */
type Fault = 'network' | 'drop' | 'server_error' | 'rate_limited' | 'refused' | 'key_refused' | 'delay';

type Action =
  | { kind: 'connect' }
  | { kind: 'disconnect' }
  | { kind: 'renew' }
  | { kind: 'start'; retry: boolean; double: boolean }
  | { kind: 'hangup'; double: boolean }
  | { kind: 'advance'; ms: number }
  | { kind: 'fault'; op: Operation; fault: Fault; delayMs: number; times: number }
  | { kind: 'service'; state: 'dialing_recipient' | 'connected' | 'ending' | 'ended' | 'failed' }
  | { kind: 'invite'; which: 'latest' | 'stranger' }
  | { kind: 'bye' }
  | { kind: 'socket'; event: 'drop' | 'back' | 'lost' }
  /** The session expires at the service's clock (spec 3.2); with `told`, the registrar drops the registration too. */
  | { kind: 'expire'; told: boolean }
  /** The user logs out: the integrator's server ends the session, which hangs up its call (spec 4.9). */
  | { kind: 'logout' }
  | { kind: 'mute'; on: boolean }
  | { kind: 'dtmf'; digit: string };

/** The oracle, independent of the library's own rule: the service's record says both legs are down. */
const isTerminal = (call: BrowserCall): boolean => call.busy === false;

const OPS: Operation[] = ['createSession', 'createCall', 'getCall', 'hangupCall', 'endSession', 'getCurrentSession'];
const FAULTS: Fault[] = ['network', 'drop', 'server_error', 'rate_limited', 'refused', 'key_refused', 'delay'];

/**
 * The longest a lost attempt may be read for: each reconciling read waits at most a 429's Retry-After (2 s
 * here) plus a held answer (3 s at most here).
 */
const RECONCILE_SPAN_MS = RECONCILE_READS * 5000;

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'connect' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'disconnect' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'renew' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('start' as const), retry: fc.boolean(), double: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hangup' as const), double: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      // Mostly moments; sometimes long enough for a reconciling loop or a call's end to show.
      ms: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 0, max: 4000 }) }, { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 120_000 }) }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fault' as const),
      op: fc.constantFrom(...OPS),
      fault: fc.constantFrom<Fault>(...FAULTS),
      delayMs: fc.integer({ min: 10, max: 3000 }),
      times: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('service' as const), state: fc.constantFrom('dialing_recipient', 'connected', 'ending', 'ended', 'failed') as fc.Arbitrary<'connected'> }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('invite' as const), which: fc.constantFrom('latest', 'stranger') as fc.Arbitrary<'latest'> }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'bye' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('socket' as const), event: fc.constantFrom('drop', 'back', 'lost') as fc.Arbitrary<'drop'> }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), told: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'logout' as const }) },
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
  /** Since when (fake time) the attempt has been unknown with no retry by the user; undefined when it is not. */
  unknownSince: number | undefined;
  /** Reads of the current session made once a lost attempt had been looked for longer than the bound. */
  lateReads: number;
  /** disconnect() calls since the attempt became unknown: each may read the current session once (spec 3.2). */
  disconnects: number;
}

/** How many requests of these operations the helper has made so far. */
const count = (world: World, ...ops: Operation[]) => world.backend.requests.filter((r) => ops.includes(r.op)).length;

function scriptFault(world: World, op: Operation, fault: Fault, delayMs: number): void {
  const { backend, clock } = world;
  if (fault === 'network') backend.fail(op, networkError());
  if (fault === 'drop') backend.drop(op);
  if (fault === 'server_error') backend.fail(op, httpError(503, 'provider_error'));
  if (fault === 'rate_limited') backend.fail(op, httpError(429, 'rate_limited', 2000));
  if (fault === 'refused') backend.fail(op, httpError(403, 'compliance_dnc'));
  if (fault === 'key_refused') backend.fail(op, httpError(403, 'browser_voice_unavailable'));
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
      asked.disconnects++;
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
      asked.unknownSince = undefined;
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
    case 'advance': {
      const reads = count(world, 'getCall', 'getCurrentSession');
      // The moment a lost attempt has been looked for as long as the helper may look (none: no such attempt).
      const bound = asked.unknownSince === undefined ? Infinity : asked.unknownSince + RECONCILE_SPAN_MS;
      const end = clock.now() + step.ms;
      if (bound < end) {
        await clock.advance(Math.max(0, bound - clock.now()));
        const before = count(world, 'getCurrentSession');
        await clock.advance(end - clock.now());
        // No reconciling loop without end: past the bound only disconnect()'s proof reads the current session.
        asked.lateReads += count(world, 'getCurrentSession') - before;
        expect(asked.lateReads, 'reads of the current session past the reconciling bound').toBeLessThanOrEqual(asked.disconnects);
      } else await clock.advance(step.ms);
      // One poller, about a read a second, plus the quick re-reads after a SIP event or an answer (spec 4.9).
      expect(count(world, 'getCall', 'getCurrentSession') - reads, `reads in ${step.ms} ms`).toBeLessThanOrEqual(Math.ceil(step.ms / 1000) + 2 + EXPECT_TRIES);
      break;
    }
    case 'fault':
      for (let i = 0; i < step.times; i++) scriptFault(world, step.op, step.fault, step.delayMs);
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
    case 'expire': {
      const session = voice.status().session;
      if (session) backend.expire(session.id);
      if (step.told && sip.links.length > 0) sip.events.onDisconnected(new VoiceBrowserError('browser_session_unavailable', 'the registration ended'));
      break;
    }
    case 'logout':
      backend.revoke();
      if (sip.links.length > 0) {
        sip.events.onDisconnected(new VoiceBrowserError('browser_session_unavailable', 'the registration ended'));
        sip.events.onSessionEnded(latest?.id);
      }
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
  const { voice, backend, clock } = world;
  const status = voice.status();
  if (status.attempt?.phase !== 'outcome_unknown') {
    asked.unknownSince = undefined;
    asked.lateReads = 0;
    asked.disconnects = 0;
  } else asked.unknownSince ??= clock.now();
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

const fault = (op: Operation, kind: Fault, times = 1): Action => ({ kind: 'fault', op, fault: kind, delayMs: 10, times });
const advance = (ms: number): Action => ({ kind: 'advance', ms });
const start: Action = { kind: 'start', retry: false, double: false };

/** The paths a random run once found broken, run first every time (the random sequences rarely line them up). */
const KNOWN_BROKEN_PATHS: Array<[Action[], boolean]> = [
  // A lost createCall whose call nobody made: reconciling must end.
  [[{ kind: 'connect' }, fault('createCall', 'network'), start, advance(120_000), advance(60_000)], false],
  // disconnect() mid-attempt: the session's end alone must not drop busy.
  [[{ kind: 'connect' }, fault('createCall', 'drop'), start, fault('getCurrentSession', 'network', 4), { kind: 'disconnect' }, advance(4000)], true],
  // The key refused on createCall: a definite no.
  [[{ kind: 'connect' }, fault('createCall', 'key_refused'), start, advance(4000)], false],
  // A lost createCall whose call was made, then its retry refused: the refusal proves nothing of the first.
  [[fault('createCall', 'drop'), { kind: 'connect' }, start, fault('createCall', 'key_refused'), { kind: 'start', retry: true, double: false }], false],
  // Logout while the call runs; then the session expires under a call and the page disconnects.
  [[{ kind: 'connect' }, start, { kind: 'invite', which: 'latest' }, { kind: 'service', state: 'connected' }, { kind: 'logout' }, advance(4000)], true],
  [[{ kind: 'connect' }, start, { kind: 'expire', told: true }, advance(2000), { kind: 'disconnect' }, advance(4000)], true],
];

describe('the helper under random actions and faults', () => {
  it('never retries a mutation, never drops busy early, never polls twice, answers only its own call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 30 }), fc.boolean(), async (steps, slowSessionEnd) => {
        const world = setup();
        // A service whose session end leaves the call `ending` until it moves it on: only a read proves the end.
        world.backend.sessionEndLeavesCallsEnding = slowSessionEnd;
        const asked: Asked = { starts: new Map(), hangups: 0, sessions: 0, keys: 0, invites: [], unknownSince: undefined, lateReads: 0, disconnects: 0 };
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
        // And nothing reads on: no loop is left behind, whatever disconnect() could prove.
        const requests = world.backend.requests.length;
        await world.clock.advance(3_600_000);
        expect(world.backend.requests.length, 'requests after disconnect()').toBe(requests);
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 3000), examples: KNOWN_BROKEN_PATHS },
    );
  });
});
