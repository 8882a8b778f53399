/**
 * The simulator's SIP over WebSocket (RFC 7118), spoken to by SIP.js in Node, the stack the page runs, over a
 * real socket: registrar with digest authentication, OPTIONS, the INVITE dialogs that ring the page's agent,
 * and SIP INFO DTMF. Each test starts its own simulator on a free loopback port and reads the outcome back
 * through the REST and control APIs, as a client of the service would.
 *
 * @remarks
 * There is no browser WebRTC in Node: a fake SessionDescriptionHandler answers with a canned SDP whose one
 * candidate is 127.0.0.1 on a silent port, so the simulator's media never connects (signalling does not need
 * it); the RFC 4733 test answers with a werift peer on loopback instead. No packet leaves 127.0.0.1, which the
 * UDP watch below checks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Core, RegistererState } from 'sip.js';
import { sleep, waitFor } from '../support/sim-api.js';
import { answeredCall, ended, pageBye, ringingCall, serviceBye, terminated, useSipWorlds } from '../support/sip-world.js';
import { WeriftSessionDescriptionHandler } from '../support/werift-sdh.js';

const ECHO_AT_ONCE = '+12025550100';
const RINGS_THREE_SECONDS = '+12025550101';

const worlds = useSipWorlds();
const { received, world, sipClient, registeredWorld } = worlds;

afterAll(() => {
  // The RFC 4733 case ran real media: its peers sent, on loopback only (checked by the fixture).
  expect(worlds.udp.sentTo.length).toBeGreaterThan(0);
});

describe('RFC 3261 section 10.3: the registrar, with digest authentication (section 22, RFC 2617)', () => {
  it('section 22.1: challenges a REGISTER with Digest MD5, qop=auth, in a 401', async () => {
    const w = await registeredWorld();
    const challenge = received.find((text) => text.startsWith('SIP/2.0 401'));
    expect(challenge).toMatch(new RegExp(`^WWW-Authenticate: Digest realm="${w.transport.realm.replace(/\./g, '\\.')}", nonce="[0-9a-f]{32}", algorithm=MD5, qop="auth"\\r?$`, 'm'));
  });

  it('section 22.4: accepts the MD5 digest answer with 200, echoing the Contact with its expires', async () => {
    const w = await world();
    const client = await sipClient(w.transport);
    const registerer = client.registerer(w.transport.registrationExpiresSeconds);
    const response = await client.register(registerer);
    expect(response.statusCode).toBe(200);
    const contact = response.getHeader('contact') ?? '';
    expect(contact).toContain(`sip:${client.ua.contact.uri.user ?? ''}@`);
    expect(contact).toMatch(new RegExp(`;expires=${w.transport.registrationExpiresSeconds}$`));
    expect(registerer.state).toBe(RegistererState.Registered);
    expect(await w.api.registered(w.session.id)).toBe(true);
  });

  it('section 22.1: a wrong password is challenged again with 401, and the agent stays unregistered', async () => {
    const w = await world();
    const client = await sipClient(w.transport, { password: 'not-the-password' });
    const registerer = client.registerer();
    const response = await client.register(registerer);
    expect(response.statusCode).toBe(401);
    expect(registerer.state).not.toBe(RegistererState.Registered);
    expect(await w.api.registered(w.session.id)).toBe(false);
  });

  it('section 21.4.4: credentials of an ended session, or of nobody, are refused 403 Forbidden', async () => {
    const w = await world();
    expect((await w.api.endSession(w.session.id)).status).toBe(200);
    const revoked = await sipClient(w.transport);
    expect((await revoked.register(revoked.registerer())).statusCode).toBe(403);

    const stranger = await sipClient(w.transport, { username: 'unobody0000000000' });
    expect((await stranger.register(stranger.registerer())).statusCode).toBe(403);
  });

  it('section 10.3 step 3: credentials are refused 403 for another address-of-record', async () => {
    const w = await world();
    const client = await sipClient(w.transport, { aor: 'sip:someone-else@127.0.0.1' });
    expect((await client.register(client.registerer())).statusCode).toBe(403);
    expect(await w.api.registered(w.session.id)).toBe(false);
  });

  it('RFC 2617 section 3.2.1: a valid answer to a nonce not issued on this connection is challenged stale, then accepted', async () => {
    const w = await world();
    const client = await sipClient(w.transport);
    const registerer = client.registerer();
    expect((await client.register(registerer)).statusCode).toBe(200);
    // A new WebSocket is a new flow (RFC 5626): the old binding goes, and so do the nonces issued on it.
    await client.ua.transport.disconnect();
    await client.ua.transport.connect();
    received.length = 0;
    expect((await client.register(registerer)).statusCode).toBe(200);
    const challenges = received.filter((text) => text.startsWith('SIP/2.0 401'));
    expect(challenges).toHaveLength(1);
    expect(challenges[0]).toMatch(/^WWW-Authenticate: Digest .*, stale=true\r?$/m);
    expect(await w.api.registered(w.session.id)).toBe(true);
  });

  it('section 10.3 step 7: a lifetime above the maximum is shortened in the 200 and honoured', async () => {
    const w = await world({ registrationMaxSeconds: 2 });
    const client = await sipClient(w.transport);
    const register = client.bareRegistrations(); // no refresh timer: the binding must lapse on its own
    const asked = Date.now();
    const response = await register(3600);
    const answered = Date.now();
    expect(response.statusCode).toBe(200);
    expect(response.getHeader('contact')).toMatch(/;expires=2$/);
    // Read at the registrar, not by a probe call, which a loaded machine may slow past the lifetime itself.
    const binding = w.sim.service.sip.registration(w.session.id);
    expect(binding?.expiresAt).toBeGreaterThanOrEqual(asked + 2_000);
    expect(binding?.expiresAt).toBeLessThanOrEqual(answered + 2_000);

    await sleep((binding?.expiresAt ?? 0) + 300 - Date.now());
    expect(await w.api.registered(w.session.id)).toBe(false);
  });

  it('section 10.2.4: a re-REGISTER before expiry refreshes the binding past the first lifetime', async () => {
    const w = await world();
    const client = await sipClient(w.transport);
    const register = client.bareRegistrations();
    expect((await register(600)).statusCode).toBe(200);
    const answered = Date.now();
    const first = w.sim.service.sip.registration(w.session.id)?.expiresAt ?? 0;
    // The refresh is asked a millisecond later at least, so a binding it refreshes lasts past the first lifetime.
    await expect.poll(() => Date.now()).toBeGreaterThan(answered);
    expect((await register(600)).statusCode).toBe(200);

    // Read at the registrar, not at a moment of the wall clock that a loaded machine may overshoot: the binding
    // now ends later than the first one did, and its record is one stretch, two REGISTERs, never unregistered.
    expect(w.sim.service.sip.registration(w.session.id)?.expiresAt).toBeGreaterThan(first);
    expect(w.sim.service.registrationOf(w.session.id)).toMatchObject({ registered: true, registrations: 2, unregisteredMs: 0 });
  });

  it('section 10.2.2: an un-REGISTER (expires 0) removes the binding', async () => {
    const w = await world();
    const client = await sipClient(w.transport);
    const registerer = client.registerer();
    expect((await client.register(registerer)).statusCode).toBe(200);

    const response = await new Promise<number | undefined>((resolve) => {
      void registerer.unregister({ requestDelegate: { onAccept: (r) => resolve(r.message.statusCode), onReject: (r) => resolve(r.message.statusCode) } });
    });
    expect(response).toBe(200);
    expect(registerer.state).toBe(RegistererState.Unregistered);
    expect(await w.api.registered(w.session.id)).toBe(false);
  });
});

describe('RFC 3261 section 11: OPTIONS, and keep-alive', () => {
  it('section 11.2: answers an out-of-dialog OPTIONS with 200 and the methods it allows', async () => {
    const w = await registeredWorld();
    const response = await w.client.request('OPTIONS');
    expect(response.statusCode).toBe(200);
    const allow = (response.getHeader('allow') ?? '').split(/\s*,\s*/);
    expect(allow).toEqual(expect.arrayContaining(['INVITE', 'ACK', 'CANCEL', 'BYE', 'INFO', 'OPTIONS']));
  });

  it('RFC 5626 section 3.5.1: answers a double-CRLF ping with a CRLF pong', async () => {
    const w = await registeredWorld();
    received.length = 0;
    await w.client.ua.transport.send('\r\n\r\n');
    await waitFor(() => (received.includes('\r\n') ? true : undefined), 'the CRLF pong');
  });
});

describe('RFC 3261 section 13: the INVITE that rings the browser (docs/simulator.md)', () => {
  it('section 13.2.1: a browser call INVITEs the registered agent, carrying X-Browser-Call-Id and an SDP offer', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await ringingCall(w);
    expect(invitation.request.getHeader('X-Browser-Call-Id')).toBe(callId);
    expect(invitation.request.getHeader('content-type')).toBe('application/sdp');
    expect(invitation.body).toMatch(/^a=rtpmap:0 PCMU\/8000\r?$/m);
    expect(invitation.body).toMatch(/^a=rtpmap:101 telephone-event\/8000\r?$/m);
    expect((await w.api.call(callId)).state).toBe('waiting_agent');
  });

  it('section 13.2.2.4: the browser answering 200 moves the call to dialing_recipient', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await ringingCall(w, RINGS_THREE_SECONDS);
    await invitation.accept();
    const call = await w.api.waitForCall(callId, (c) => c.state !== 'waiting_agent', 'the answer to count');
    expect(call.state).toBe('dialing_recipient');
    expect(call.busy).toBe(true);
    const facts = await w.api.facts(callId);
    expect(facts.browserFinalStatus).toBe(200);
    expect(facts.browserAnsweredAt).not.toBeNull();
  });

  it('section 13.2.2.3: a 486 Busy Here from the browser fails the call with endReason agent_rejected', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await ringingCall(w);
    await invitation.reject({ statusCode: 486 });
    const call = await w.api.waitForCall(callId, (c) => !c.busy, 'the call to end');
    expect(call).toMatchObject({ state: 'failed', endReason: 'agent_rejected', error: { code: 'agent_rejected' } });
    expect((await w.api.facts(callId)).browserFinalStatus).toBe(486);
  });

  it('section 9.1: a hangup before the browser answers CANCELs the INVITE; no dialog, the call ends', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await ringingCall(w);
    let cancelled = false;
    invitation.delegate = { onCancel: () => (cancelled = true) };
    expect((await w.api.hangup(callId)).status).toBe(202);
    await terminated(invitation);
    expect(cancelled).toBe(true);
    // At most the early dialog of its 180 (RFC 3261 section 12.1), never a confirmed one.
    expect([undefined, Core.SessionState.Early, Core.SessionState.Terminated]).toContain(invitation.dialog?.sessionState);
    const call = await w.api.waitForCall(callId, (c) => !c.busy, 'the call to end');
    expect(call).toMatchObject({ state: 'ended', endReason: 'api_hangup' });
    // The 487 Request Terminated that answers the cancelled INVITE is the browser's final answer.
    const facts = await w.api.facts(callId);
    expect(facts.browserFinalStatus).toBe(487);
    expect(facts.browserAnsweredAt).toBeNull();
    expect(facts.history.map((entry) => entry.state)).toEqual(['waiting_agent', 'ending', 'ended']);
  });
});

describe('RFC 3261 section 15: BYE from either side', () => {
  it('section 15.1.2: a BYE from the browser is answered 200 and ends the call with endReason agent_hangup', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await answeredCall(w);
    expect(await pageBye(invitation)).toBe(200);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', endReason: 'agent_hangup', busy: false });
  });

  it('section 15.1.1: a hangup through the API reaches the browser as a BYE; the call ends with api_hangup', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await answeredCall(w);
    expect(await serviceBye(w, callId, invitation)).toBe(true);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', endReason: 'api_hangup', busy: false });
  });
});

describe('RFC 6086: INFO inside the dialog carries DTMF', () => {
  it('section 4.2: application/dtmf-relay and application/dtmf INFOs are answered 200 and recorded as sip-info', async () => {
    const w = await registeredWorld();
    const { callId, invitation } = await answeredCall(w);
    const info = (contentType: string, content: string) =>
      new Promise<number | undefined>((resolve) => {
        void invitation.info({
          requestOptions: { body: { contentDisposition: 'render', contentType, content } },
          requestDelegate: { onAccept: (r) => resolve(r.message.statusCode), onReject: (r) => resolve(r.message.statusCode) },
        });
      });
    expect(await info('application/dtmf-relay', 'Signal=5\r\nDuration=160\r\n')).toBe(200);
    expect(await info('application/dtmf', '7')).toBe(200);
    const facts = await w.api.facts(callId);
    expect(facts.dtmf.map(({ digit, method }) => ({ digit, method }))).toEqual([
      { digit: '5', method: 'sip-info' },
      { digit: '7', method: 'sip-info' },
    ]);
    for (const { at } of facts.dtmf) expect(Date.parse(at)).not.toBeNaN();
  });
});

describe('RFC 4733: DTMF as telephone-events in the call\'s media', () => {
  it('section 2.3: each event is recorded once, with method rfc4733, however often its end packet repeats', async () => {
    const w = await registeredWorld({}, { media: 'werift' });
    const { callId, invitation } = await answeredCall(w);
    const sdh = invitation.sessionDescriptionHandler;
    if (!(sdh instanceof WeriftSessionDescriptionHandler)) throw new Error('expected the werift handler');
    await waitFor(() => (sdh.pc.connectionState === 'connected' ? true : undefined), 'media to connect on loopback');
    // Both ends: the page may see its side connected before the simulator can read SRTP, longer so under load.
    await waitFor(async () => ((await w.api.facts(callId)).mediaConnectedAt ? true : undefined), 'media connected at the simulator');
    expect(sdh.sendDtmf('1#')).toBe(true);
    const facts = await waitFor(async () => {
      const current = await w.api.facts(callId);
      return current.dtmf.length >= 2 ? current : undefined;
    }, 'two digits at the simulator');
    await sleep(200); // room for a wrongly counted repeat to show up
    const settled = await w.api.facts(callId);
    expect(settled.dtmf.map(({ digit, method }) => ({ digit, method }))).toEqual([
      { digit: '1', method: 'rfc4733' },
      { digit: '#', method: 'rfc4733' },
    ]);
    expect(facts.mediaConnectedAt).not.toBeNull();
  });
});
