import { describe, expect, it } from 'vitest';
import { transition } from '../../../../lib/core/machines/call-attempts.js';
import { idleCall, isTerminal, type CallEvent, type CallSlice, type InviteRef } from '../../../../lib/core/machines/call-machine.js';
import type { BrowserCall, CallInput } from '../../../../lib/core/types.js';

const input: CallInput = { from: '+12025550199', to: '+12025550100' };
const KEY = 'key-1';

function call(patch: Partial<BrowserCall> = {}): BrowserCall {
  return { id: 'call-1', state: 'waiting_agent', busy: true, revision: 1, ...patch };
}

/** Runs events from idle and returns the last state with every effect seen on the way. */
function run(...events: CallEvent[]) {
  let state: CallSlice = idleCall;
  const effects = [];
  for (const event of events) {
    const [next, produced] = transition(state, event);
    state = next;
    effects.push(...produced);
  }
  return { state, effects };
}

const started: CallEvent = { type: 'attempt_started', idempotencyKey: KEY, input };
const admitted = (c: BrowserCall = call()): CallEvent => ({ type: 'attempt_admitted', call: c });
const read = (c: BrowserCall): CallEvent => ({ type: 'call_read', call: c });

describe('transition', () => {
  it('turns busy true with a creating attempt on attempt_started', () => {
    const [state, effects] = transition(idleCall, started);
    expect(state).toEqual({ attempt: { idempotencyKey: KEY, input, phase: 'creating' }, call: null, busy: true, error: null, hangupWanted: false, heldInvite: null, readFailing: false, recording: false, answerLost: false });
    expect(effects).toEqual([]);
  });

  it('starts polling the admitted call when the 202 is not terminal', () => {
    const { state, effects } = run(started, admitted());
    expect(state.busy).toBe(true);
    expect(state.call?.id).toBe('call-1');
    expect(state.attempt).toMatchObject({ idempotencyKey: KEY, phase: 'admitted' });
    expect(effects).toEqual([{ type: 'start_polling', callId: 'call-1' }]);
  });

  it('keeps a hangup asked before the call was named, and asks for it once the 202 names the call', () => {
    const { state, effects } = run(started, { type: 'hangup_deferred' }, admitted());
    expect(state).toMatchObject({ busy: true, hangupWanted: true, call: { id: 'call-1' } });
    expect(effects).toEqual([{ type: 'start_polling', callId: 'call-1' }, { type: 'hang_up', callId: 'call-1' }]);
    // The call's end clears the wish; it never carries over to the next call.
    expect(transition(state, read(call({ state: 'ended', busy: false, revision: 2 })))[0].hangupWanted).toBe(false);
  });

  it('carries a deferred hangup over a retry of the same lost attempt, but not into a new attempt', () => {
    const unknown: CallEvent = { type: 'attempt_unknown', error: { code: 'call_outcome_unknown', message: 'lost' } };
    expect(run(started, { type: 'hangup_deferred' }, unknown, started).state.hangupWanted).toBe(true);
    expect(run(started, { type: 'hangup_deferred' }, unknown, { ...started, idempotencyKey: 'key-2' } as CallEvent).state.hangupWanted).toBe(false);
  });

  it('defers no hangup for an admitted call (that one is posted at once) or without an attempt', () => {
    expect(run(started, admitted(), { type: 'hangup_deferred' }).state.hangupWanted).toBe(false);
    expect(transition(idleCall, { type: 'hangup_deferred' })).toEqual([idleCall, []]);
  });

  it('asks no hangup of a call that is already over when it is named', () => {
    const { effects } = run(started, { type: 'hangup_deferred' }, admitted(call({ state: 'failed', busy: false })));
    expect(effects.some((e) => e.type === 'hang_up')).toBe(false);
  });

  it('turns busy false when the admitted call is already terminal', () => {
    const ended = call({ state: 'failed', busy: false, error: { code: 'provider_error' } });
    const { state, effects } = run(started, admitted(ended));
    expect(state.busy).toBe(false);
    expect(state.attempt).toBeNull();
    expect(state.call).toEqual(ended);
    expect(effects).toContainEqual({ type: 'call_ended', call: ended });
    // Whatever polling it asked for, it ends with polling stopped.
    expect(effects.filter((e) => e.type !== 'call_ended').at(-1)).toEqual({ type: 'stop_polling' });
  });

  it('turns busy false, keeps the error and clears the attempt when the service rejects the call', () => {
    const error = { code: 'compliance_dnc', message: 'the number is on a do-not-call list' };
    const { state, effects } = run(started, { type: 'attempt_rejected', error });
    expect(state).toEqual({ attempt: null, call: null, busy: false, error, hangupWanted: false, heldInvite: null, readFailing: false, recording: false, answerLost: false });
    expect(effects).toEqual([]);
  });

  it('keeps busy true and the attempt with its key when the outcome is unknown', () => {
    const error = { code: 'call_outcome_unknown', message: 'retry with the same key' };
    const { state, effects } = run(started, { type: 'attempt_unknown', error });
    expect(state.busy).toBe(true);
    expect(state.attempt).toEqual({ idempotencyKey: KEY, input, phase: 'outcome_unknown' });
    expect(state.error).toEqual(error);
    // spec 7: reconcile by reads, never by dialing again.
    expect(effects).toEqual([{ type: 'start_reconciling' }]);
  });

  it('ends the call on a terminal read: busy false, polling stopped, call_ended', () => {
    const ended = call({ state: 'ended', busy: false, revision: 5, endReason: 'hangup' });
    const { state, effects } = run(started, admitted(), read(ended));
    expect(state).toMatchObject({ busy: false, attempt: null, call: ended });
    expect(effects.slice(1)).toEqual([{ type: 'stop_polling' }, { type: 'call_ended', call: ended }]);
  });

  it('keeps busy true on a non-terminal read and shows the state the service read', () => {
    const { state, effects } = run(started, admitted(), read(call({ state: 'connected', revision: 3 })));
    expect(state.busy).toBe(true);
    expect(state.call?.state).toBe('connected');
    expect(effects).toHaveLength(1);
  });

  it('ignores a stale read with a lower revision', () => {
    const newer = call({ state: 'connected', revision: 4 });
    const { state, effects } = run(started, admitted(), read(newer), read(call({ state: 'dialing_recipient', revision: 3 })));
    expect(state.call).toBe(newer);
    expect(effects).toHaveLength(1);
  });

  it('ignores a stale terminal read too: an old `ended` cannot end a newer record', () => {
    const newer = call({ state: 'connected', revision: 4 });
    const { state } = run(started, admitted(), read(newer), read(call({ state: 'ended', busy: false, revision: 2 })));
    expect(state.busy).toBe(true);
    expect(state.call).toBe(newer);
  });

  it('ignores a read of another call id', () => {
    const { state, effects } = run(started, admitted(), read(call({ id: 'call-2', state: 'ended', busy: false, revision: 9 })));
    expect(state.call?.id).toBe('call-1');
    expect(state.busy).toBe(true);
    expect(effects).toHaveLength(1);
  });

  it('ignores reads once the call is terminal: an ended call is not brought back', () => {
    const ended = call({ state: 'ended', busy: false, revision: 5 });
    const { state, effects } = run(started, admitted(), read(ended), read(call({ state: 'connected', busy: true, revision: 6 })));
    expect(state.busy).toBe(false);
    expect(state.call).toBe(ended);
    expect(effects.filter((e) => e.type === 'call_ended')).toHaveLength(1);
  });

  it("does not treat state 'ended' with busy true as terminal: busy is authoritative when present", () => {
    const endingLegs = call({ state: 'ended', busy: true, revision: 2 });
    expect(isTerminal(endingLegs)).toBe(false);
    const { state, effects } = run(started, admitted(), read(endingLegs));
    expect(state.busy).toBe(true);
    expect(effects.map((e) => e.type)).toEqual(['start_polling']);
  });

  it('treats busy false as terminal whatever the state, and a terminal state as terminal when busy is absent', () => {
    expect(isTerminal(call({ state: 'connected', busy: false }))).toBe(true);
    expect(isTerminal({ id: 'c', state: 'failed' })).toBe(true);
    expect(isTerminal({ id: 'c', state: 'ended' })).toBe(true);
    expect(isTerminal({ id: 'c', state: 'outcome_unknown' })).toBe(false);
    expect(isTerminal({ id: 'c', state: 'ending' })).toBe(false);
  });

  it('preserves fields of the call record it does not know', () => {
    const withExtras = call({ state: 'connected', revision: 2, leg: { provider: 'x' }, recordingId: 'rec-1' });
    const { state } = run(started, admitted(), read(withExtras));
    expect(state.call).toEqual(withExtras);
    expect(state.call?.['leg']).toEqual({ provider: 'x' });
    expect(state.call?.['recordingId']).toBe('rec-1');
  });

  it('ignores an admission or an unknown outcome when no attempt is pending', () => {
    expect(transition(idleCall, admitted())).toEqual([idleCall, []]);
    expect(transition(idleCall, { type: 'attempt_unknown', error: { code: 'x', message: 'y' } })).toEqual([idleCall, []]);
  });

  it('restarts the attempt on a retry after an unknown outcome, keeping the same key', () => {
    const error = { code: 'call_outcome_unknown', message: 'retry' };
    const { state } = run(started, { type: 'attempt_unknown', error }, started);
    expect(state).toEqual({ attempt: { idempotencyKey: KEY, input, phase: 'creating' }, call: null, busy: true, error: null, hangupWanted: false, heldInvite: null, readFailing: false, recording: false, answerLost: true });
  });

  it("keeps busy true and the first request's outcome unknown when its retry is refused (spec 3.2: only a read proves the call over)", () => {
    const lost: CallEvent = { type: 'attempt_unknown', error: { code: 'call_outcome_unknown', message: 'lost' } };
    const refused = { code: 'browser_voice_unavailable', message: 'the service refused the key' };
    const rejected: CallEvent = { type: 'attempt_rejected', error: refused };
    const { state, effects } = run(started, lost, started, rejected);
    // The refusal proves the retry made nothing, not that the first request made nothing.
    expect(state).toMatchObject({ attempt: { idempotencyKey: KEY, phase: 'outcome_unknown' }, busy: true, error: refused });
    // Reads look for the first request's call again, as after its answer was lost.
    expect(effects.at(-1)).toEqual({ type: 'start_reconciling' });
    // The first request's call, once a read names it, is the attempt's: polled until its terminal read.
    const [found, foundEffects] = transition(state, { type: 'attempt_reconciled', call: call() });
    expect(found).toMatchObject({ attempt: { phase: 'admitted' }, call: { id: 'call-1' }, busy: true });
    expect(foundEffects).toEqual([{ type: 'start_polling', callId: 'call-1' }]);
    // A first request refused outright made nothing: busy false, as before.
    expect(run(started, rejected).state).toMatchObject({ attempt: null, busy: false, error: refused });
  });

  it('does not change the state it was given', () => {
    const before = run(started, admitted()).state;
    const copy = structuredClone(before);
    transition(before, read(call({ state: 'ended', busy: false, revision: 2 })));
    expect(before).toEqual(copy);
  });
});

describe('the INVITE rule (DESIGN.md: only our own call is answered)', () => {
  /** One INVITE per call id: the machine names back the very INVITE it decided on. */
  const refs = new Map<string | undefined, InviteRef>();
  const ref = (callId: string | undefined): InviteRef => refs.get(callId) ?? refs.set(callId, { id: refs.size + 1, callId, at: 0 }).get(callId)!;
  const invite = (callId: string | undefined): CallEvent => ({ type: 'invite_received', invite: ref(callId) });
  const answer = (callId: string | undefined) => ({ type: 'answer_invite', invite: ref(callId) });
  const reject = (callId: string | undefined) => ({ type: 'reject_invite', invite: ref(callId) });
  const unknown: CallEvent = { type: 'attempt_unknown', error: { code: 'call_outcome_unknown', message: 'lost' } };

  it("answers the admitted call's own INVITE and refuses any other", () => {
    const { state } = run(started, admitted());
    expect(transition(state, invite('call-1'))).toEqual([state, [answer('call-1')]]);
    expect(transition(state, invite('call-2'))).toEqual([state, [reject('call-2')]]);
    expect(transition(state, invite(undefined))).toEqual([state, [reject(undefined)]]);
  });

  it('refuses every INVITE without an attempt, for an ended call, or once a hangup was asked', () => {
    expect(transition(idleCall, invite('call-1'))).toEqual([idleCall, [reject('call-1')]]);
    const ended = run(started, admitted(call({ state: 'failed', busy: false }))).state;
    expect(transition(ended, invite('call-1'))[1]).toEqual([reject('call-1')]);
    const hungUp = run(started, { type: 'hangup_deferred' }).state;
    expect(transition(hungUp, invite('call-1'))).toEqual([hungUp, [reject('call-1')]]);
  });

  it('holds the INVITE that comes before the 202 and answers it when the 202 names its call', () => {
    const { state, effects } = run(started, invite('call-1'));
    expect(state.heldInvite).toBe(ref('call-1'));
    expect(effects).toEqual([]);
    const [after, admittedEffects] = transition(state, admitted());
    expect(after.heldInvite).toBeNull();
    expect(admittedEffects).toEqual([{ type: 'start_polling', callId: 'call-1' }, answer('call-1')]);
  });

  it('refuses the held INVITE when the 202 names another call, or a call already over', () => {
    expect(run(started, invite('call-9'), admitted()).effects.at(-1)).toEqual(reject('call-9'));
    expect(run(started, invite('call-1'), admitted(call({ state: 'failed', busy: false }))).effects.at(-1)).toEqual(reject('call-1'));
  });

  it('refuses the held INVITE when nothing was created, when the user hangs up, or when reads stop', () => {
    const rejected: CallEvent = { type: 'attempt_rejected', error: { code: 'compliance_dnc', message: 'no' } };
    expect(run(started, invite('call-1'), rejected)).toMatchObject({ state: { heldInvite: null }, effects: [reject('call-1')] });
    expect(run(started, invite('call-1'), { type: 'hangup_deferred' }).effects.at(-1)).toEqual(reject('call-1'));
    expect(run(started, invite('call-1'), { type: 'reads_stopped' }).effects).toEqual([{ type: 'stop_polling' }, reject('call-1')]);
  });

  it('holds one INVITE at a time: a second refuses the first; a retry keeps it, refused or not, and a reconciling read answers it', () => {
    expect(run(started, invite('call-1'), invite('call-2'))).toMatchObject({
      state: { heldInvite: ref('call-2') },
      effects: [reject('call-1')],
    });
    const { state } = run(started, unknown, invite('call-1'), started);
    expect(state.heldInvite).toBe(ref('call-1'));
    // A refused retry leaves it held: it may be the lost request's call.
    const refused: CallEvent = { type: 'attempt_rejected', error: { code: 'browser_voice_unavailable', message: 'no' } };
    expect(transition(state, refused)[0].heldInvite).toBe(ref('call-1'));
    expect(transition(run(started, unknown, invite('call-1')).state, { type: 'attempt_reconciled', call: call() })[1].at(-1)).toEqual(answer('call-1'));
  });
});

describe('read failures', () => {
  const failed: CallEvent = { type: 'read_failed', error: { code: 'network_error', message: 'retrying' } };

  it('reports a failed read until a read succeeds, then clears it', () => {
    const { state, effects } = run(started, admitted(), failed);
    expect(state.readFailing).toBe(true);
    expect(effects.at(-1)).toEqual({ type: 'report', error: { code: 'network_error', message: 'retrying' } });
    const [after, cleared] = transition(state, { type: 'read_ok' });
    expect(after.readFailing).toBe(false);
    expect(cleared).toEqual([{ type: 'report', error: null }]);
    expect(transition(after, { type: 'read_ok' })).toEqual([after, []]);
  });

  it("keeps an error of the call itself shown when reads recover (a lost answer's call_outcome_unknown)", () => {
    const unknown: CallEvent = { type: 'attempt_unknown', error: { code: 'call_outcome_unknown', message: 'lost' } };
    const { state } = run(started, unknown, failed);
    expect(transition(state, { type: 'read_ok' })).toEqual([{ ...state, readFailing: false }, []]);
  });
});
