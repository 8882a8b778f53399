import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { SessionState, type Invitation } from 'sip.js';
import type { BrowserCall, BrowserSession, SessionTransport } from '../../../simulator/service/model.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../../simulator/server.js';
import { SimulatorApi, SIM_TEST_KEY, waitFor } from './sim-api.js';
import { lendWebSocket, SipClient, type SipClientOptions } from './sip-client.js';
import { watchUdp, type UdpWatch } from './udp-watch.js';
import { WeriftSessionDescriptionHandler } from './werift-sdh.js';

/**
 * The fixture of the suites that speak SIP to a real simulator: each test starts its own simulators on free
 * loopback ports and SIP.js clients over real WebSockets, and everything is stopped after it, clients first
 * (their un-REGISTER and BYE reach a live simulator), then the simulators.
 *
 * @remarks
 * {@link useSipWorlds} installs the hooks and, after the suite, checks that no UDP packet left 127.0.0.1 and
 * that no socket, server or timer of the simulators and clients is left behind.
 */

/**
 * How early a simulator timer may seem to fire by the wall clock: Node arms a timer from the event loop's
 * cached time, which lags `Date.now()` by whatever ran earlier in that turn, and ISO timestamps drop the
 * sub-millisecond part. A delay checked from recorded timestamps is "at least its length, less this".
 */
export const TIMER_SLACK_MS = 25;

export interface World {
  sim: RunningSimulator;
  api: SimulatorApi;
  session: BrowserSession;
  transport: SessionTransport;
}

export type RegisteredWorld = World & { client: SipClient };

export interface SipWorlds {
  /** Addresses every UDP socket of this suite bound to and sent to. */
  readonly udp: UdpWatch;
  /** Every text frame the clients received, since the test began. */
  readonly received: string[];
  /** A simulator with short timings, an agent and a browser session with its SIP credentials. */
  world(options?: Partial<SimulatorOptions>): Promise<World>;
  /** Another session of a new subject on the same simulator. */
  session(w: Pick<World, 'sim' | 'api'>): Promise<World>;
  /** A SIP.js client of the session, stopped after the test. */
  sipClient(transport: SessionTransport, options?: SipClientOptions): Promise<SipClient>;
  /** A world whose agent is registered by a SIP.js Registerer, as the page registers it. */
  registeredWorld(options?: Partial<SimulatorOptions>, clientOptions?: SipClientOptions): Promise<RegisteredWorld>;
  /** Runs `cleanup` after the test, before the clients and simulators started earlier are stopped. */
  defer(cleanup: () => Promise<void>): void;
}

const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

export function useSipWorlds(): SipWorlds {
  let udp: UdpWatch | undefined;
  const received: string[] = [];
  let restoreWebSocket: () => void = () => undefined;
  let cleanups: Array<() => Promise<void>> = [];
  let subjects = 0;
  let timersBefore = 0;

  beforeAll(() => {
    udp = watchUdp();
    timersBefore = timers();
  });
  afterAll(async () => {
    udp?.stop();
    // Loopback only: media peers bind and send (ICE checks, SRTP), but never beyond 127.0.0.1.
    expect(udp?.bound.filter((address) => address !== '127.0.0.1')).toEqual([]);
    expect(udp?.sentTo.filter((address) => address !== '127.0.0.1')).toEqual([]);
    const kinds = ['TCPSocketWrap', 'TCPServerWrap', 'UDPWrap'];
    await waitFor(() => (process.getActiveResourcesInfo().some((kind) => kinds.includes(kind)) ? undefined : true), 'sockets released', 30_000);
    // ...and no timer of theirs (SIP transaction timers run 32 s): at most fetch's own clock tick remains.
    await waitFor(() => (timers() <= timersBefore + 1 ? true : undefined), 'timers released', 30_000);
  });
  beforeEach(() => {
    received.length = 0;
    restoreWebSocket = lendWebSocket(received);
  });
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
    restoreWebSocket();
  });

  const defer = (cleanup: () => Promise<void>): void => void cleanups.push(cleanup);
  const session = async ({ sim, api }: Pick<World, 'sim' | 'api'>): Promise<World> => {
    const { session, transport } = await api.openSession(`subject-${++subjects}`);
    return { sim, api, session, transport };
  };
  const world = async (options: Partial<SimulatorOptions> = {}): Promise<World> => {
    const sim = await startSimulator({ apiKey: SIM_TEST_KEY, port: 0, mediaAddresses: 'loopback', noAnswerMs: 1000, toneMs: 100, ...options });
    defer(() => sim.close());
    return session({ sim, api: new SimulatorApi(sim) });
  };
  const sipClient = async (transport: SessionTransport, options?: SipClientOptions): Promise<SipClient> => {
    const client = await SipClient.start(transport, options);
    defer(() => client.stop());
    return client;
  };
  const registeredWorld = async (options: Partial<SimulatorOptions> = {}, clientOptions: SipClientOptions = {}): Promise<RegisteredWorld> => {
    const w = await world(options);
    const client = await sipClient(w.transport, clientOptions);
    const response = await client.register(client.registerer(w.transport.registrationExpiresSeconds));
    expect(response.statusCode).toBe(200);
    return { ...w, client };
  };
  return {
    get udp() {
      if (!udp) throw new Error('useSipWorlds: the suite has not started');
      return udp;
    },
    received,
    world,
    session,
    sipClient,
    registeredWorld,
    defer,
  };
}

/** Starts a browser call; answers its id and the INVITE it delivered (which may come before the 202). */
export async function ringingCall(w: RegisteredWorld, to = '+12025550100', extra: { maxDurationSeconds?: number } = {}): Promise<{ callId: string; invitation: Invitation }> {
  const invited = w.client.nextInvitation();
  const started = await w.api.startCall(w.session.id, to, extra);
  expect(started.status).toBe(202);
  return { callId: started.body.call.id, invitation: await invited };
}

/** A call the browser answered, past `waiting_agent`. */
export async function answeredCall(w: RegisteredWorld, to = '+12025550100', extra: { maxDurationSeconds?: number } = {}): Promise<{ callId: string; invitation: Invitation }> {
  const ringing = await ringingCall(w, to, extra);
  await ringing.invitation.accept();
  await w.api.waitForCall(ringing.callId, (call) => call.state !== 'waiting_agent', 'the call to leave waiting_agent');
  return ringing;
}

/**
 * A call answered by an agent with werift media (`registeredWorld(..., { media: 'werift' })`) whose audio flows
 * both ways: the agent sends a microphone's PCMU and hears the simulator's. `fromPage()` counts what the
 * simulator received.
 */
export async function talkingCall(w: RegisteredWorld): Promise<{ callId: string; invitation: Invitation; sdh: WeriftSessionDescriptionHandler; fromPage(): Promise<number> }> {
  const { callId, invitation } = await answeredCall(w);
  const sdh = invitation.sessionDescriptionHandler;
  if (!(sdh instanceof WeriftSessionDescriptionHandler)) throw new Error('expected the werift handler');
  await waitFor(() => (sdh.pc.connectionState === 'connected' ? true : undefined), 'media to connect on loopback');
  sdh.startAudio();
  const fromPage = async () => (await w.api.inspect(callId)).media?.packetsFromBrowser ?? 0;
  await waitFor(async () => ((await fromPage()) > 25 ? true : undefined), 'the page audio to reach the simulator');
  await waitFor(() => (sdh.packetsReceived > 25 ? true : undefined), 'the simulator audio to reach the page');
  return { callId, invitation, sdh, fromPage };
}

/** Resolves once the SIP.js session reached Terminated. */
export function terminated(invitation: Invitation): Promise<void> {
  return waitFor(() => (invitation.state === SessionState.Terminated ? true : undefined), 'the SIP session to terminate').then(() => undefined);
}

/** Waits until the call is no longer busy (spec 3.2: both legs down); answers that read. */
export function ended(w: Pick<World, 'api'>, callId: string): Promise<BrowserCall> {
  return w.api.waitForCall(callId, (call) => !call.busy, 'the call to end');
}

/** The page hangs up (RFC 3261 section 15.1.1): its BYE goes along the dialog's route set; answers the final status. */
export function pageBye(invitation: Invitation): Promise<number | undefined> {
  return new Promise((resolve) => {
    void invitation.bye({ requestDelegate: { onAccept: (r) => resolve(r.message.statusCode), onReject: (r) => resolve(r.message.statusCode) } });
  });
}

/**
 * The service hangs up (`POST /browser-calls/{id}/hangup`, `202`) and its BYE reaches the page, which answers it
 * 200; resolves once the page's session ended, with whether the page saw that BYE.
 */
export async function serviceBye(w: Pick<World, 'api'>, callId: string, invitation: Invitation): Promise<boolean> {
  let byeReceived = false;
  invitation.delegate = {
    onBye: (bye) => {
      byeReceived = true;
      void bye.accept(); // with onBye set, SIP.js leaves the 200 to us
    },
  };
  expect((await w.api.hangup(callId)).status).toBe(202);
  await terminated(invitation);
  return byeReceived;
}
