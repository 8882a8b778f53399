/**
 * The service withdraws an INVITE the page has not answered, as it was seen to do behind a SIP proxy: CANCEL
 * (RFC 3261 section 9.1), the page's 487, and the call `failed` with `invite_withdrawn`. Through the control
 * route `POST /__sim/calls/:id/withdraw-invite`, and through the `withdraw-invite` fault, which lets the POST
 * /browser-calls answer go only after the CANCEL: INVITE, CANCEL, then the 202. SIP.js in Node is the page.
 */
import { describe, expect, it } from 'vitest';
import { SessionState } from 'sip.js';
import { answeredCall, ended, ringingCall, terminated, useSipWorlds, type RegisteredWorld } from '../support/sip-world.js';

const ECHO_AT_ONCE = '+12025550100';
const WITHDRAWN = {
  state: 'failed',
  endReason: 'invite_withdrawn',
  error: { code: 'invite_withdrawn', message: 'the service withdrew the INVITE before the browser answered' },
  busy: false,
};

const { registeredWorld } = useSipWorlds();

/** The page's part of the withdrawal: its 487 answered the CANCEL, and it never answered the INVITE. */
async function expectWithdrawnFacts(w: RegisteredWorld, callId: string): Promise<void> {
  const facts = await w.api.facts(callId);
  expect(facts).toMatchObject({ browserFinalStatus: 487, browserAnsweredAt: null });
  expect(facts.history.map((entry) => entry.state)).toEqual(['waiting_agent', 'ending', 'failed']);
}

describe('POST /__sim/calls/:id/withdraw-invite', () => {
  it('CANCELs a ringing INVITE and answers 202 once the call is failed, invite_withdrawn', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await ringingCall(w);
    let cancelled = false;
    invitation.delegate = { onCancel: () => (cancelled = true) };

    const withdrawn = await w.api.withdrawInvite(callId);
    expect(withdrawn.status).toBe(202);
    // The answer comes once the terminal state is committed: no read needed to see it.
    expect(withdrawn.body.call).toMatchObject(WITHDRAWN);
    expect(cancelled).toBe(true);
    await terminated(invitation);
    expect(await w.api.call(callId)).toMatchObject(WITHDRAWN);
    await expectWithdrawnFacts(w, callId);
  });

  it('answers 409 invite_not_ringing once the browser answered, and for a call that is over', async () => {
    const w = await registeredWorld();
    const { callId } = await answeredCall(w);
    expect(await w.api.withdrawInvite(callId)).toMatchObject({ status: 409, body: { code: 'invite_not_ringing' } });
    expect(await w.api.call(callId)).toMatchObject({ busy: true });

    await w.api.hangup(callId);
    await ended(w, callId);
    expect(await w.api.withdrawInvite(callId)).toMatchObject({ status: 409, body: { code: 'invite_not_ringing' } });
  });

  it('answers an unknown call 404 not_found', async () => {
    const w = await registeredWorld();
    expect(await w.api.withdrawInvite('bc_unknown')).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});

describe('the withdraw-invite fault on POST /browser-calls', () => {
  it('sends the INVITE, CANCELs it, and only then answers 202 waiting_agent; a read shows the call failed', async () => {
    const w = await registeredWorld();
    const armed = await w.api.control('POST', '/faults', { method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'withdraw-invite' });
    expect(armed.status).toBe(201);
    let cancelled = false;
    const invited = w.client.nextInvitation().then((invitation) => {
      invitation.delegate = { onCancel: () => (cancelled = true) };
      return invitation;
    });

    // What the page had seen when the POST answered, read as the answer arrives.
    const started = w.api.startCall(w.session.id, ECHO_AT_ONCE).then(async (answer) => ({ answer, cancelled, state: (await invited).state }));
    const { answer, cancelled: cancelledBeforeAnswer, state } = await started;
    // The page had the CANCEL, and its invitation was over, before the POST answered.
    expect(cancelledBeforeAnswer).toBe(true);
    expect(state).toBe(SessionState.Terminated);
    // The answer goes out as the request built it.
    expect(answer.status).toBe(202);
    expect(answer.body.call).toMatchObject({ state: 'waiting_agent', busy: true });

    const callId = answer.body.call.id;
    expect((await invited).request.getHeader('X-Browser-Call-Id')).toBe(callId);
    expect(await w.api.call(callId)).toMatchObject(WITHDRAWN);
    await expectWithdrawnFacts(w, callId);
    // The fault was for one request: the next call rings as usual.
    const next = await ringingCall(w);
    expect(await w.api.call(next.callId)).toMatchObject({ state: 'waiting_agent', busy: true });
  });

  it('does nothing more when the request is refused: no call, no INVITE', async () => {
    const w = await registeredWorld();
    await w.api.control('POST', '/faults', { method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'withdraw-invite' });
    const refused = await w.api.startCall(w.session.id, '+12025550105');
    expect(refused).toMatchObject({ status: 403, body: { code: 'compliance_dnc' } });
    expect(await w.api.callsOf(w.session.id)).toEqual([]);
    expect((await w.api.control<{ armed: unknown[] }>('GET', '/faults')).body.armed).toEqual([]);
  });
});
