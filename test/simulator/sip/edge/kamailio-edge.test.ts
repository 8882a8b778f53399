/**
 * The simulator behind a real SIP edge: Debian's Kamailio (scripts/kamailio/kamailio.cfg) takes a SIP.js client's
 * SIP over WebSocket (RFC 7118) and relays it over UDP to the simulator's UDP side, which answers by the Via and
 * routes its INVITE along the REGISTER's Path (RFC 3327). Kamailio runs on free loopback ports, started and stopped
 * by its PID for this file (installed first if missing: scripts/ensure-kamailio.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionState } from 'sip.js';
import { freeUdpPort, startKamailio, type RunningKamailio } from '../../../../scripts/start-kamailio.js';
import { answeredCall, ended, pageBye, serviceBye, useSipWorlds, type RegisteredWorld } from '../../support/sip-world.js';

const worlds = useSipWorlds();
const { received, registeredWorld } = worlds;

let edge: RunningKamailio;
let simulatorUdpPort: number;

beforeAll(async () => {
  simulatorUdpPort = await freeUdpPort();
  edge = await startKamailio(simulatorUdpPort);
}, 30_000);

afterAll(async () => {
  await edge.stop();
  // The edge is gone with its PID: its WebSocket port no longer takes a connection.
  await expect(fetch(edge.websocketUrl.replace(/^ws/, 'http'))).rejects.toThrow();
});

/** A simulator with its UDP side on the port Kamailio relays to, and the session's websocketUrl the edge's. */
const behindTheEdge = (): Promise<RegisteredWorld> => registeredWorld({ sipUdpPort: simulatorUdpPort, sipEdgeUrl: edge.websocketUrl });

/** The first message the client received that starts with `start`, with its headers unfolded by line. */
const receivedMessage = (start: string): string => received.find((text) => text.startsWith(start)) ?? '';

describe('a SIP.js client registers through Kamailio to the simulator', () => {
  it('RFC 3327: the REGISTER reaches the registrar with the edge\'s Path, and the 200 comes back through the edge', async () => {
    const w = await behindTheEdge();
    expect(w.transport.websocketUrl).toBe(edge.websocketUrl);
    expect(await w.api.registered(w.session.id)).toBe(true);
    // The challenge and the 200 were the simulator's (its digest realm), relayed: the edge is no registrar.
    expect(receivedMessage('SIP/2.0 401')).toMatch(/^WWW-Authenticate: Digest realm="127\.0\.0\.1"/m);
    const ok = received.filter((text) => text.startsWith('SIP/2.0 200') && /^CSeq: \d+ REGISTER/m.test(text)).at(-1) ?? '';
    // RFC 3327 section 5.3: the registrar stored the Path the edge added (its UDP side, and the page's connection
    // in `received`) and echoes it to a UA that supports Path, as SIP.js says it does.
    expect(ok).toMatch(new RegExp(`^Path: <sip:127\\.0\\.0\\.1:${edge.udpPort};lr;received=`, 'm'));
  });
});

describe('an INVITE, its ACK and BYE both ways through Kamailio', () => {
  it('RFC 3261 sections 12 and 16: the INVITE comes along the Path, is record-routed both ways, and the ACK and BYE follow the route set', async () => {
    const w = await behindTheEdge();
    const { callId, invitation } = await answeredCall(w);
    const invite = receivedMessage('INVITE ');
    // Double Record-Route (RFC 3261 section 16.6 step 4): the edge's WebSocket side and its UDP side.
    expect(invite).toMatch(/^Record-Route: .*transport=ws/im);
    expect(invite).toMatch(new RegExp(`^Record-Route: .*127\\.0\\.0\\.1:${edge.udpPort}`, 'im'));
    // The simulator's Contact is its UDP side: the page's in-dialog requests go there, through the edge.
    expect(invite).toMatch(new RegExp(`^Contact: <sip:127\\.0\\.0\\.1:${simulatorUdpPort}>`, 'm'));
    // The ACK for the 200 came back to the page through the edge.
    await expect.poll(() => receivedMessage('ACK ') !== '').toBe(true);
    expect(invitation.state).toBe(SessionState.Established);
    await w.api.waitForCall(callId, (call) => call.state === 'connected', 'the call to be connected');
    // The page hangs up: its BYE goes by the route set to the simulator, which answers 200 through the edge.
    expect(await pageBye(invitation)).toBe(200);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', endReason: 'agent_hangup' });
  });

  it('RFC 3261 section 15.1.1: the service\'s BYE reaches the page through the edge, by the aliased Contact of its answer', async () => {
    const w = await behindTheEdge();
    const { callId, invitation } = await answeredCall(w);
    expect(await serviceBye(w, callId, invitation)).toBe(true);
    expect(await ended(w, callId)).toMatchObject({ state: 'ended', endReason: 'api_hangup' });
  });
});

describe("the simulator's socket faults behind the edge, whose WebSocket the page's is", () => {
  it('close-sip-socket asks the edge to close the page\'s WebSocket (an OPTIONS along the Path), and it does; stall-sip-socket is refused', async () => {
    const w = await behindTheEdge();
    expect(w.client.ua.transport.isConnected()).toBe(true);
    w.sim.service.closeSipSockets(w.session.id);
    await expect.poll(() => w.client.ua.transport.isConnected()).toBe(false);
    expect(() => w.sim.service.stallSipSockets(w.session.id)).toThrow(/stall-sip-socket cannot strike a page behind a SIP edge/);
    // Refused when armed, with its code, rather than failing the read it would have struck.
    const armed = await fetch(`${w.sim.url}/__sim/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fault: 'stall-sip-socket', method: 'GET', path: '/api/v1/voice/browser-sessions/:id' }) });
    expect(armed.status).toBe(409);
    expect(await armed.json()).toMatchObject({ code: 'fault_unavailable' });
  });
});
