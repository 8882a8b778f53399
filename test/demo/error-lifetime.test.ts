import { describe, expect, it } from 'vitest';
import type { VoiceBrowserStatus } from 'voice-browser';
import { followCall } from '../../demo/models/error-lifetime.js';
import { noErrors, shownError, type ErrorView } from '../../demo/models/voice-actions.js';
import { READY } from '../support/demo-status.js';

const idle = READY;

const call = (id: string, state: string, busy: boolean) => ({ id, state, busy }) as VoiceBrowserStatus['call'];
const refusedKey = { code: 'no_active_call', message: 'sendDtmf() needs an answered call' };
const refusedCall = { code: 'compliance_dnc', message: 'the number is on a do-not-call list' };

/** The view after each status in turn, as the model folds them. */
const follow = (statuses: VoiceBrowserStatus[], view: ErrorView = { ...noErrors, lastAction: 'call' }) => statuses.reduce(followCall, view);
const shownAfter = (statuses: VoiceBrowserStatus[]) => shownError(statuses.at(-1)?.error ?? null, follow(statuses));

describe('a call card error’s lifetime', () => {
  const connected = { ...idle, busy: true, call: call('bc_1', 'connected', true) };
  const ended = { ...idle, call: call('bc_1', 'ended', false) };

  it('settles an error raised during a call once that call has ended, while the card shows how it ended', () => {
    const during = { ...connected, error: refusedKey };
    expect(shownAfter([connected, during])?.error).toEqual(refusedKey);
    // The helper keeps its error until its next failure; the card no longer shows it once the call is over.
    expect(shownAfter([connected, during, { ...ended, error: refusedKey }])).toBeNull();
  });

  it('keeps an error raised outside a call (a refused call) beside the dialer until a new call runs', () => {
    const refused = { ...ended, error: refusedCall };
    expect(shownAfter([ended, refused])?.error).toEqual(refusedCall);
    // Nothing else happens: the refusal stays, even as the old call's words stay on the card.
    expect(shownAfter([ended, refused, refused])?.error).toEqual(refusedCall);
    expect(shownAfter([ended, refused, { ...idle, busy: true, call: call('bc_2', 'waiting_agent', true), error: refusedCall }])).toBeNull();
  });

  it('leaves errors shown beside the connection or the queues to those, whatever the call does', () => {
    const failed = { code: 'connection_failed', message: 'the SIP connection failed' };
    expect(shownAfter([connected, { ...connected, error: failed }, { ...ended, error: failed }])).toEqual({ area: 'connection', error: failed, message: null });
  });

  it('keeps an error about what outlives the call (its session expired under it) once the call is over', () => {
    const expired = { code: 'browser_session_unavailable', message: 'the SIP registration ended' };
    expect(shownAfter([connected, { ...connected, error: expired }, { ...ended, error: expired }])?.error).toEqual(expired);
  });

  it('notes a new error afresh, with the call in progress then', () => {
    const second = { code: 'recording_outcome_unknown', message: 'no answer' };
    const view = follow([connected, { ...connected, error: refusedKey }, { ...connected, error: second }]);
    expect(view.raised).toEqual({ error: second, callId: 'bc_1', inCall: true });
    expect(view.settled).toBeNull();
  });

  it('returns the same view when nothing changed, so the page does not render again', () => {
    const view = follow([connected, { ...connected, error: refusedKey }]);
    expect(followCall(view, { ...connected, error: refusedKey })).toBe(view);
    expect(followCall(noErrors, idle)).toBe(noErrors);
  });
});
