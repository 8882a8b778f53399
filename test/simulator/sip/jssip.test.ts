/**
 * A second SIP stack against the simulator's registrar: JsSIP (not the stack the page runs, nor the one whose
 * core the simulator uses) in Node over a `ws` WebSocket, with its own digest code.
 *
 * @remarks
 * Only registration: to take an INVITE, JsSIP needs the browser's `window`, `RTCPeerConnection` and
 * `RTCSessionDescription` globals, which Node does not have; the INVITE, CANCEL and BYE cases run with SIP.js
 * in sip.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { UA, WebSocketInterface } from 'jssip';
import { waitFor } from '../support/sim-api.js';
import { useSipWorlds, type World } from '../support/sip-world.js';

const { world, received, defer } = useSipWorlds();

/**
 * A JsSIP user agent with the session's credentials (or another password), stopped after the test; resolves
 * once its WebSocket is open (a REGISTER sent before would fail as a connection error).
 */
async function jsSip(w: World, password = w.transport.authorizationPassword): Promise<UA> {
  const ua = new UA({
    sockets: [new WebSocketInterface(w.transport.websocketUrl)],
    uri: w.transport.sipUri,
    authorization_user: w.transport.authorizationUsername,
    password,
    register_expires: 600,
    register: false,
  });
  defer(async () => {
    ua.stop();
    await waitFor(() => (ua.isConnected() ? undefined : true), 'JsSIP to disconnect');
  });
  const open = new Promise<void>((resolve) => ua.once('connected', () => resolve()));
  ua.start();
  await open;
  return ua;
}

type Outcome = { event: 'registered' | 'registrationFailed' | 'unregistered'; status: number | undefined };

describe('RFC 3261 section 10 with JsSIP: a stack that is not ours', () => {
  it('registers with the digest answer, gets 200 with the granted expires, and unregisters', async () => {
    const w = await world({ registrationMaxSeconds: 120 });
    const outcomes: Outcome[] = [];
    const ua = await jsSip(w);
    ua.on('registered', (e) => outcomes.push({ event: 'registered', status: e.response.status_code }));
    ua.on('registrationFailed', (e) => outcomes.push({ event: 'registrationFailed', status: e.response?.status_code }));
    ua.on('unregistered', (e) => outcomes.push({ event: 'unregistered', status: e.response?.status_code }));
    ua.register();
    await waitFor(() => (outcomes.length > 0 ? true : undefined), 'the registration outcome');
    expect(outcomes).toEqual([{ event: 'registered', status: 200 }]);
    // The 401 challenge came first, and the 200 granted the registrar's maximum, not the 600 asked for.
    expect(received.some((text) => text.startsWith('SIP/2.0 401'))).toBe(true);
    expect(received.find((text) => text.startsWith('SIP/2.0 200'))).toMatch(/^Expires: 120\r?$/m);
    expect(await w.api.registered(w.session.id)).toBe(true);

    ua.unregister();
    await waitFor(() => (outcomes.length > 1 ? true : undefined), 'the un-REGISTER outcome');
    expect(outcomes[1]).toEqual({ event: 'unregistered', status: 200 });
    expect(await w.api.registered(w.session.id)).toBe(false);
  });

  it('is refused 401 with a wrong password, and stays unregistered', async () => {
    const w = await world();
    const failures: Array<number | undefined> = [];
    const ua = await jsSip(w, 'not-the-password');
    ua.on('registrationFailed', (e) => failures.push(e.response?.status_code));
    ua.register();
    await waitFor(() => (failures.length > 0 ? true : undefined), 'the refusal');
    expect(failures).toEqual([401]);
    expect(await w.api.registered(w.session.id)).toBe(false);
  });
});
