/**
 * The simulator's control API (`/__sim/` on its port) as typed functions, for an app's tests: read what the
 * service holds of a call, make the far end hang up, expire a session, arm faults, reset. Plain `fetch`, no
 * Playwright, so it works from any test runner; `@voice-browser/simulator/playwright` hands it to each test.
 *
 * @remarks
 * The shapes here are the wire's, written out so the package's types reach nothing of werift; the call
 * records are the contract's own (`BrowserCallRecord`, `QueueCallRecord`), which the simulator writes and the
 * proxy reads. A unit test holds the rest to the simulator's own.
 */

import type { BrowserCallRecord as SimulatedCallRecord } from '../../contract/browser-call.js';
import type { QueueCallRecord as InboundCallRecord } from '../../contract/queue-call.js';
import type { SimulatorEdge, SimulatorEdgeInput } from './control-edge-shapes.js';
import type { Impairment, MediaDirection } from '../media/impairment.js';
import type { SimulatorNetwork, SimulatorNetworkInput } from '../turn/network-profile.js';

export type { SimulatorEdge, SimulatorEdgeInput, SimulatorEdgeProfile } from './control-edge-shapes.js';
export type { NetworkProfile, SessionIce, SimulatorNetwork, SimulatorNetworkInput } from '../turn/network-profile.js';
// The records are the contract's, under the names the package has always given them: a browser call as its
// REST API answers it, and a queue's inbound call (spec 3.1, 3.2).
export type { SimulatedCallRecord, InboundCallRecord };

/** Audio packets the simulator counted on a call's browser leg. */
export interface SimulatedMedia {
  /** Audio packets from the page (the microphone), DTMF packets excluded. */
  packetsFromBrowser: number;
  /** Their payload bytes. */
  bytesFromBrowser: number;
  /** Of those, the packets loud enough to be speech: a muted page sends none. */
  voicedPacketsFromBrowser: number;
  /** RFC 4733 DTMF packets from the page. */
  dtmfPacketsFromBrowser: number;
  /** Epoch ms of the last audio packet from the page. */
  lastPacketFromBrowserAt: number | null;
  /** Packets the simulator sent the page (a tone, then the page's own audio echoed). */
  packetsToBrowser: number;
  /** The codec the call's audio runs on, as the page's answer agreed it. */
  codec: 'opus' | 'pcmu';
}

/**
 * What `GET /__sim/calls/:id` answers: the call, what the simulator observed of it, and its media counts. For a
 * queued caller ({@link SimulatorControl.inboundCall}), the browser leg is the INVITE of the last dequeue.
 */
export interface SimulatedCall<Record = SimulatedCallRecord> {
  /** The call as REST answers it. */
  call: Record;
  /** What the simulator observed of the call's SIP dialog and media. */
  facts: {
    /** Every state the call went through, oldest first. */
    history: Array<{ state: string; at: string }>;
    /** When the service's INVITE went to the page, and how the page answered it. */
    inviteSentAt: string | null;
    browserAnsweredAt: string | null;
    browserFinalStatus: number | null;
    /** When audio first flowed on the browser leg. */
    mediaConnectedAt: string | null;
    /** When the SIP WebSocket carrying the browser leg closed while the leg was up. */
    transportLostAt: string | null;
    /**
     * How the service's BYE or CANCEL went when it ended the browser leg: `answered` by the page, `unreachable`
     * (its socket gone, and no newer flow of an agent registered for outbound), `timeout`, or `already` ended.
     */
    browserLegEnd: 'answered' | 'unreachable' | 'timeout' | 'already' | null;
    /** The browser leg's packet counts, once it has media. */
    media: SimulatedMedia | null;
    /** Each DTMF digit the far end heard, and how the page sent it. */
    dtmf: Array<{ digit: string; method: 'rfc4733' | 'sip-info'; at: string }>;
    /** Re-INVITEs the page sent in the call's dialog, and how many restarted ICE. */
    reinvites: number;
    iceRestarts: number;
    /** The audio formats the page's last re-INVITE offered, by `rtpmap` name (`PCMU/8000`) in its order; null before any. */
    lastReofferFormats: string[] | null;
    /** The Opus parameters (`useinbandfec=1;...`) of the page's last re-INVITE; null before any, or without Opus. */
    lastReofferOpus: string | null;
    /**
     * Requests the service sent in the dialog of its own accord (an `asterisk` edge's PRACKs and session
     * refreshes, a hold) and the page's final status code to each, oldest first.
     */
    edgeRequests: Array<{ method: string; statusCode: number; at: string }>;
  };
  /** The browser leg's packet counts, once it has media (the same as `facts.media`). */
  media: SimulatedMedia | null;
}

/** Which requests a fault applies to: the next `count` (default 1) matching `method` and `path`. */
interface FaultTarget {
  method: 'GET' | 'POST' | 'DELETE' | '*';
  /** A path on the simulator's port, e.g. `/api/v1/voice/browser-calls`; `:id` matches a segment, a trailing `*` the rest. */
  path: string;
  count?: number;
}

/** A fault for `POST /__sim/faults`: how the simulator answers the matching requests badly. */
export type SimulatorFault =
  /** Does the work, then closes the connection without an answer: a lost answer. */
  | (FaultTarget & { fault: 'drop-response' })
  /** Waits `delayMs` before doing the request. */
  | (FaultTarget & { fault: 'delay'; delayMs: number })
  /** Answers this error instead of doing the request. */
  | (FaultTarget & { fault: 'error'; status: number; code: string; message?: string; retryAfterSeconds?: number })
  /** Does the request, then closes the SIP WebSocket of `sessionId` (or every one) from the service's side. */
  | (FaultTarget & { fault: 'close-sip-socket'; sessionId?: string })
  /**
   * Does the request, then stalls the SIP WebSocket of `sessionId` (or every one): it stays open and answers
   * nothing, keep-alive pings and the page's closing handshake included.
   */
  | (FaultTarget & { fault: 'stall-sip-socket'; sessionId?: string })
  /** Does the request, then drops every packet of the media of `callId` (or every call in progress), both ways, for `ms`. */
  | (FaultTarget & { fault: 'media-blackhole'; ms: number; callId?: string })
  /**
   * Does the request, then impairs the media of `callId` (or every call in progress) in `direction` (default
   * both) from then on: loss, random or bursty, delay, jitter, reordering, a rate cap; `null` lifts it.
   */
  | (FaultTarget & { fault: 'media-impair'; impairment: Impairment | null; direction?: MediaDirection | 'both'; seed?: number; callId?: string })
  /**
   * Does the request, then restarts the SIP edge for `seconds`: every SIP socket drops at once with no closing
   * handshake (their registrations with them), and new WebSockets are refused until it is back.
   */
  | (FaultTarget & { fault: 'edge-restart'; seconds: number })
  /** For `POST /api/v1/voice/browser-calls`: withdraws the call's INVITE (CANCEL) before the answer goes out. */
  | (FaultTarget & { fault: 'withdraw-invite' })
  /** The next `count` queue webhooks of `event` (of `queueId` when given) are never sent: lost (spec 6.1, no retry). */
  | (WebhookTarget & { fault: 'drop-webhook' })
  /** The next `count` queue webhooks of `event` are sent `delayMs` late; past 5000, later than spec 6.1's 5 s attempt. */
  | (WebhookTarget & { fault: 'delay-webhook'; delayMs: number });

/** Which queue webhooks a fault applies to: the next `count` (default 1) of `event` (`*`: either), of `queueId` when given. */
interface WebhookTarget {
  event: 'call.received' | 'call.ended' | '*';
  queueId?: string;
  count?: number;
}

/** A control request the simulator refused, with its status and `code`. */
export class SimulatorControlError extends Error {
  override readonly name = 'SimulatorControlError';

  constructor(
    /** The HTTP status the simulator answered. */
    readonly status: number,
    /** The simulator's error code (`not_found`, `invalid_argument`, ...), or `invalid_response` for a body that is not JSON. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the registrar did for one session, read through `GET /__sim/sessions/:id/registration`. */
export interface RegistrationRecord {
  /** A binding is in force now. */
  registered: boolean;
  /** When the first binding was made (ISO 8601); null when the session never registered. */
  firstRegisteredAt: string | null;
  /** How long, since the first binding, no binding was in force (ran out, or dropped with its socket), in ms. */
  unregisteredMs: number;
  /** REGISTERs that bound the session (the first and every refresh). */
  registrations: number;
  /** The WebSockets the bindings were made on: 1 for a page that kept its socket. */
  sockets: number;
}

/**
 * The control API of the simulator at `url`, as functions. Each rejects with a {@link SimulatorControlError}
 * when the simulator refuses (an unknown id is `404 not_found`), or with `fetch`'s own error when it cannot be reached.
 */
export interface SimulatorControl {
  /** What the simulator holds and observed of one call. */
  call(callId: string): Promise<SimulatedCall>;
  /** Every call of a session, oldest first. */
  callsOfSession(sessionId: string): Promise<SimulatedCallRecord[]>;
  /** The recipient hangs up the call. */
  remoteHangup(callId: string): Promise<SimulatedCallRecord>;
  /** The far end asks the page to transfer the call (a REFER in its answered dialog); resolves with the page's final status code. */
  refer(callId: string): Promise<number>;
  /** The service withdraws the call's INVITE before the page answered it (a CANCEL). */
  withdrawInvite(callId: string): Promise<SimulatedCallRecord>;
  /** The session's expiry time becomes now: it takes no new calls. Resolves with the session as it now stands. */
  expireSession(sessionId: string): Promise<{ id: string; status: string; expiresAt: string }>;
  /**
   * What the registrar did for a session so far: whether it is registered now, how long it was not since it first
   * registered (a page hidden or frozen for minutes should show 0), its REGISTERs and the sockets they came on.
   */
  registration(sessionId: string): Promise<RegistrationRecord>;
  /** Arms a fault for the next matching requests, or for the next matching queue webhooks. */
  fault(fault: SimulatorFault): Promise<void>;
  /** Disarms every fault. */
  clearFaults(): Promise<void>;
  /**
   * An inbound caller reaches the queue, named by id or by name (`queueId: 'Support'`): a `queued` call, and
   * `call.received` posted to the queue's `notifyUrl`.
   */
  inbound(caller: { queueId: string; from: string; to: string }): Promise<InboundCallRecord>;
  /** The inbound caller hangs up: `finished`, and `call.ended` posted. */
  callerHangup(callId: string): Promise<InboundCallRecord>;
  /** What the simulator holds and observed of an inbound call: its dequeues' INVITEs, media and the DTMF it heard. */
  inboundCall(callId: string): Promise<SimulatedCall<InboundCallRecord>>;
  /** The SIP edge the simulator speaks as now. */
  edge(): Promise<SimulatorEdge>;
  /** Sets the SIP edge for what comes next (the next ping, REGISTER and INVITE); `reset()` puts back the first. */
  setEdge(edge: SimulatorEdgeInput): Promise<SimulatorEdge>;
  /** Restarts the SIP edge: every SIP socket (and its registration) dropped at once, new ones refused `seconds`. */
  restartEdge(seconds: number): Promise<SimulatorEdge>;
  /** The far end holds the call without music (a re-INVITE `a=sendonly`, no audio); the page's final status. */
  hold(callId: string): Promise<number>;
  /** The far end takes the call off hold: a re-INVITE offering `a=sendrecv`, and audio again. */
  unhold(callId: string): Promise<number>;
  /** The network profiles new sessions' ICE configuration is issued for (docs/network.md), and the TURN server's addresses. */
  network(): Promise<SimulatorNetwork>;
  /**
   * Sets the network profile of new sessions, everyone's or one subject's; a TURN-using profile starts the
   * simulator's coturn first (`503 turn_unavailable` without one). `reset()` puts back `open`.
   */
  setNetwork(network: SimulatorNetworkInput): Promise<SimulatorNetwork>;
  /** Forgets every session, call, queue, fault, key change, quota count and idempotency record, and puts back the edge it started with. */
  reset(): Promise<void>;
}

/**
 * The control API of the simulator listening at `url` (its root, e.g. `http://127.0.0.1:8090`).
 *
 * @example
 * ```ts
 * const control = createSimulatorControl(simulator.url);
 * await control.fault({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'drop-response' });
 * const { call, media } = await control.call(callId);
 * ```
 */
export function createSimulatorControl(url: string): SimulatorControl {
  const root = `${url.replace(/\/+$/, '')}/__sim`;
  async function request<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const response = await fetch(root + path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json().catch(() => null)) as (T & { code?: string; error?: string; message?: string }) | null;
    if (!response.ok || answer === null) {
      throw new SimulatorControlError(response.status, answer?.code ?? 'invalid_response', `${method} /__sim${path}: ${response.status} ${answer?.message ?? answer?.error ?? ''}`.trim());
    }
    return answer;
  }
  const id = encodeURIComponent;
  return {
    call: (callId) => request('GET', `/calls/${id(callId)}`),
    callsOfSession: async (sessionId) => (await request<{ calls: SimulatedCallRecord[] }>('GET', `/calls?sessionId=${id(sessionId)}`)).calls,
    remoteHangup: async (callId) => (await request<{ call: SimulatedCallRecord }>('POST', `/calls/${id(callId)}/remote-hangup`)).call,
    refer: async (callId) => (await request<{ status: number }>('POST', `/calls/${id(callId)}/refer`)).status,
    withdrawInvite: async (callId) => (await request<{ call: SimulatedCallRecord }>('POST', `/calls/${id(callId)}/withdraw-invite`)).call,
    expireSession: async (sessionId) => (await request<{ session: { id: string; status: string; expiresAt: string } }>('POST', `/sessions/${id(sessionId)}/expire`)).session,
    registration: async (sessionId) => (await request<{ registration: RegistrationRecord }>('GET', `/sessions/${id(sessionId)}/registration`)).registration,
    fault: async (fault) => void (await request('POST', '/faults', fault)),
    clearFaults: async () => void (await request('DELETE', '/faults')),
    inbound: async (caller) => (await request<{ call: InboundCallRecord }>('POST', '/inbound', caller)).call,
    callerHangup: async (callId) => (await request<{ call: InboundCallRecord }>('POST', `/inbound/${id(callId)}/hangup`)).call,
    inboundCall: (callId) => request('GET', `/calls/${id(callId)}`),
    edge: async () => (await request<{ edge: SimulatorEdge }>('GET', '/edge')).edge,
    setEdge: async (edge) => (await request<{ edge: SimulatorEdge }>('PUT', '/edge', edge)).edge,
    restartEdge: async (seconds) => (await request<{ edge: SimulatorEdge }>('POST', '/edge/restart', { seconds })).edge,
    hold: async (callId) => (await request<{ status: number }>('POST', `/calls/${id(callId)}/hold`)).status,
    unhold: async (callId) => (await request<{ status: number }>('POST', `/calls/${id(callId)}/unhold`)).status,
    network: async () => (await request<{ network: SimulatorNetwork }>('GET', '/network')).network,
    setNetwork: async (network) => (await request<{ network: SimulatorNetwork }>('PUT', '/network', network)).network,
    reset: async () => void (await request('POST', '/reset')),
  };
}
