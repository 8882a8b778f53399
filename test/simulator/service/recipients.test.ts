/**
 * The recipient test numbers of docs/simulator.md, one case each, against a real simulator with shortened recipient
 * timings, its browser leg answered by SIP.js in Node: the call's state path (from `GET /__sim/calls/:id`), its
 * endReason and error code, and the browser's side of the dialog.
 */
import { describe, expect, it } from 'vitest';
import { BROWSER_CALL_TRANSITIONS } from '../../../contract/browser-call.js';
import type { BrowserCall, BrowserCallState } from '../../../simulator/service/model.js';
import { DEFAULT_RECIPIENT_TIMINGS, recipientFor } from '../../../simulator/service/recipients.js';
import type { SimulatorOptions } from '../../../simulator/server.js';
import { TIMER_SLACK_MS, answeredCall, ended, terminated, useSipWorlds, type RegisteredWorld } from '../support/sip-world.js';

const TIMINGS = { ringMs: 300, slowAnswerMs: 500, noAnswerMs: 400, recipientHangupMs: 400, outcomeUnknownMs: 500 } satisfies Partial<SimulatorOptions>;

const { registeredWorld, received } = useSipWorlds();

interface Case {
  to: string;
  does: string;
  /** Every state the call goes through, including those after the API hangup of an answered call. */
  path: BrowserCallState[];
  endReason: string;
  errorCode?: string;
  /** States whose entries must lie at least this far apart: [from, to, ms]. */
  atLeast?: [BrowserCallState, BrowserCallState, number];
}

const ANSWERED: BrowserCallState[] = ['waiting_agent', 'dialing_recipient', 'connected', 'ending', 'ended'];
const UNANSWERED: BrowserCallState[] = ['waiting_agent', 'dialing_recipient', 'ending', 'ended'];

const cases: Case[] = [
  { to: '+12025550100', does: 'answers at once', path: ANSWERED, endReason: 'api_hangup' },
  { to: '+12025550101', does: 'rings, then answers', path: ANSWERED, endReason: 'api_hangup', atLeast: ['dialing_recipient', 'connected', TIMINGS.slowAnswerMs] },
  { to: '+12025550102', does: 'is busy', path: UNANSWERED, endReason: 'recipient_busy' },
  { to: '+12025550103', does: 'rings unanswered, then gives up', path: UNANSWERED, endReason: 'no_answer', atLeast: ['dialing_recipient', 'ending', TIMINGS.noAnswerMs] },
  { to: '+12025550104', does: 'fails on the recipient leg', path: ['waiting_agent', 'dialing_recipient', 'ending', 'failed'], endReason: 'recipient_failed', errorCode: 'provider_error' },
  { to: '+12025550106', does: 'answers, then hangs up', path: ANSWERED, endReason: 'recipient_hangup', atLeast: ['connected', 'ending', TIMINGS.recipientHangupMs] },
  {
    to: '+12025550107',
    does: 'stays outcome_unknown, then resolves to ended',
    path: ['waiting_agent', 'dialing_recipient', 'outcome_unknown', 'ending', 'ended'],
    endReason: 'outcome_resolved',
    atLeast: ['outcome_unknown', 'ending', TIMINGS.outcomeUnknownMs],
  },
  { to: '+12025550188', does: '(any other number) rings, then answers', path: ANSWERED, endReason: 'api_hangup', atLeast: ['dialing_recipient', 'connected', TIMINGS.ringMs] },
];

/** When the call entered `state`, from its history. */
const entered = (history: Array<{ state: string; at: string }>, state: string): number => Date.parse(history.find((entry) => entry.state === state)?.at ?? '');

describe('docs/simulator.md recipient test numbers', () => {
  it.each(cases)('$to $does: $endReason', async ({ to, path, endReason, errorCode, atLeast }) => {
    const w = await registeredWorld(TIMINGS);
    const { callId, invitation } = await answeredCall(w, to);
    if (path.includes('connected') && endReason === 'api_hangup') {
      await w.api.waitForCall(callId, (call) => call.state === 'connected', 'the recipient to answer');
      expect((await w.api.hangup(callId)).status).toBe(202);
    }
    if (path.includes('outcome_unknown')) {
      // spec 3.2: an unknown outcome is not an end: busy stays true.
      expect(await w.api.waitForCall(callId, (call) => call.state !== 'dialing_recipient', 'the outcome to turn unknown')).toMatchObject({ state: 'outcome_unknown', busy: true });
    }
    const call: BrowserCall = await ended(w, callId);
    expect(call).toMatchObject({ state: path.at(-1), endReason, busy: false, error: errorCode === undefined ? null : { code: errorCode } });
    // The browser answered, so its leg ends by a BYE from the service (or its own, never here).
    await terminated(invitation);
    const { history } = await w.api.facts(callId);
    expect(history.map((entry) => entry.state)).toEqual(path);
    // The library's diagram draws each move the simulator made (the demo's state diagram is drawn from it).
    const drawn = new Set(BROWSER_CALL_TRANSITIONS.map((move) => move.join(' → ')));
    for (let i = 1; i < path.length; i++) expect(drawn, `${path[i - 1]} → ${path[i]}`).toContain(`${path[i - 1]} → ${path[i]}`);
    if (atLeast) expect(entered(history, atLeast[1]) - entered(history, atLeast[0])).toBeGreaterThanOrEqual(atLeast[2] - TIMER_SLACK_MS);
  });

  it('+12025550100 answers in the same turn as it is dialled, so no read can land between the two', async () => {
    const w = await registeredWorld(TIMINGS);
    // Looks at the session's calls once every turn of the event loop, as a read arriving then would.
    const seen = new Set<string>();
    let watching = true;
    const watch = (): void => {
      for (const call of w.sim.service.callsOfSession(w.session.id)) seen.add(call.state);
      if (watching) setImmediate(watch);
    };
    watch();
    const { callId } = await answeredCall(w, '+12025550100');
    await w.api.waitForCall(callId, (call) => call.state === 'connected', 'the recipient to answer');
    watching = false;
    expect(seen).toContain('waiting_agent');
    expect(seen).toContain('connected');
    expect(seen).not.toContain('dialing_recipient');
    expect((await w.api.facts(callId)).history.map((entry) => entry.state)).toEqual(['waiting_agent', 'dialing_recipient', 'connected']);
    expect((await w.api.hangup(callId)).status).toBe(202);
    await ended(w, callId);
  });

  it('+12025550105 is compliance blocked: POST /browser-calls answers 403 compliance_dnc, no call and no INVITE', async () => {
    const w: RegisteredWorld = await registeredWorld(TIMINGS);
    received.length = 0;
    const refused = await w.api.startCall(w.session.id, '+12025550105');
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'compliance_dnc' });
    expect(await w.api.callsOf(w.session.id)).toEqual([]);
    expect(received.filter((text) => text.startsWith('INVITE '))).toEqual([]);
    // The session is untouched and still takes a call.
    expect((await w.api.startCall(w.session.id, '+12025550100')).status).toBe(202);
  });

  it('defaults to the documented timings: 1 s ring, 3 s for +12025550101, 5 s talk for 106, 10 s unknown for 107', () => {
    expect(DEFAULT_RECIPIENT_TIMINGS).toEqual({ noAnswerMs: 8000, ringMs: 1000, slowAnswerMs: 3000, recipientHangupMs: 5000, outcomeUnknownMs: 10_000 });
    const documented = { noAnswerMs: 8000 };
    expect(recipientFor('+12025550188', documented)).toEqual({ kind: 'answer', ringMs: 1000 });
    expect(recipientFor('+12025550101', documented)).toEqual({ kind: 'answer', ringMs: 3000 });
    expect(recipientFor('+12025550103', documented)).toEqual({ kind: 'no_answer', ringMs: 8000 });
    expect(recipientFor('+12025550106', documented)).toEqual({ kind: 'answer', ringMs: 0, hangupAfterMs: 5000 });
    expect(recipientFor('+12025550107', documented)).toEqual({ kind: 'unknown', resolveAfterMs: 10_000 });
  });
});
