import { randomUUID } from 'node:crypto';
import type { CallFacts } from '../../../simulator/calls/call-facts.js';
import type { MediaCounts } from '../../../simulator/media/media.js';
import type { BrowserCall, BrowserSession, SessionTransport } from '../../../simulator/service/model.js';
import type { RunningSimulator } from '../../../simulator/server.js';

/**
 * The running simulator seen from outside, as a test client: REST under `/api/v1/voice` with the key, and the
 * control API under `/__sim/`. Every call goes over HTTP on loopback.
 */

/** Shaped like a real key (a fixed prefix plus 32 alphanumerics, docs/simulator.md). */
export const SIM_TEST_KEY = 'vk_test_S1pT3stK3y0000aaaaBBBBccccDDDDee';

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

/** `{error, code}` of a rejection (spec 2.2), or the resource. */
export type CallResponse = { call: BrowserCall } & { code?: string };

export class SimulatorApi {
  constructor(
    /** The running simulator, in this process or another (only its addresses are used). */
    private readonly sim: Pick<RunningSimulator, 'url' | 'baseUrl'>,
    private readonly apiKey = SIM_TEST_KEY,
  ) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { 'X-Api-Key': this.apiKey };
    if (method === 'POST') headers['Idempotency-Key'] = randomUUID();
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${this.sim.baseUrl}/v1/voice${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  /** Creates the subject's webrtc agent and a browser session; answers the session and its SIP credentials. */
  async openSession(externalSubject: string): Promise<{ session: BrowserSession; transport: SessionTransport }> {
    const agent = await this.request('POST', '/agents', { name: externalSubject, type: 'webrtc', externalSubject });
    if (agent.status !== 201) throw new Error(`POST /agents answered ${agent.status}`);
    const created = await this.request<{ session: BrowserSession; transport: SessionTransport }>('POST', '/browser-sessions', { externalSubject });
    if (created.status !== 201) throw new Error(`POST /browser-sessions answered ${created.status}`);
    return created.body;
  }

  endSession(id: string): Promise<ApiResponse<{ session: BrowserSession }>> {
    return this.request('DELETE', `/browser-sessions/${id}`);
  }

  startCall(sessionId: string, to: string, extra: { maxDurationSeconds?: number } = {}): Promise<ApiResponse<CallResponse>> {
    return this.request('POST', '/browser-calls', { sessionId, from: '+12025550199', to, ...extra });
  }

  async call(id: string): Promise<BrowserCall> {
    return (await this.request<{ call: BrowserCall }>('GET', `/browser-calls/${id}`)).body.call;
  }

  hangup(id: string): Promise<ApiResponse<{ call: BrowserCall }>> {
    return this.request('POST', `/browser-calls/${id}/hangup`);
  }

  /** A request to the control API under `/__sim/` (no key); answers its status and parsed body. */
  async control<T>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> {
    const response = await fetch(`${this.sim.url}/__sim${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  /** `POST /__sim/sessions/:id/expire`: the session expires now, as the service's own clock would have it. */
  expireSession(id: string): Promise<ApiResponse<{ session: BrowserSession }>> {
    return this.control('POST', `/sessions/${id}/expire`);
  }

  /** `POST /__sim/calls/:id/withdraw-invite`: the service CANCELs the INVITE the page has not answered. */
  withdrawInvite(id: string): Promise<ApiResponse<CallResponse>> {
    return this.control('POST', `/calls/${id}/withdraw-invite`);
  }

  /** `GET /__sim/calls/:id`: the call with the SIP and media facts the simulator observed. */
  async facts(id: string): Promise<CallFacts> {
    return (await this.inspect(id)).facts;
  }

  /** `GET /__sim/calls/:id` whole: the call, its facts and its media counts (null before media started). */
  async inspect(id: string): Promise<{ call: BrowserCall; facts: CallFacts; media: MediaCounts | null }> {
    const response = await fetch(`${this.sim.url}/__sim/calls/${id}`);
    return (await response.json()) as { call: BrowserCall; facts: CallFacts; media: MediaCounts | null };
  }

  /** `POST /__sim/calls/:id/remote-hangup`: the recipient hangs up; answers the status. */
  async remoteHangup(id: string): Promise<number> {
    return (await fetch(`${this.sim.url}/__sim/calls/${id}/remote-hangup`, { method: 'POST' })).status;
  }

  /** `GET /__sim/calls?sessionId=`: every call of the session, oldest first. */
  async callsOf(sessionId: string): Promise<BrowserCall[]> {
    const response = await fetch(`${this.sim.url}/__sim/calls?sessionId=${encodeURIComponent(sessionId)}`);
    return ((await response.json()) as { calls: BrowserCall[] }).calls;
  }

  /** Polls the call until `done` holds; answers that read. */
  waitForCall(id: string, done: (call: BrowserCall) => boolean, what: string): Promise<BrowserCall> {
    return waitFor(async () => {
      const call = await this.call(id);
      return done(call) ? call : undefined;
    }, what);
  }

  /**
   * Whether the session's agent is registered, as the service proves it: POST /browser-calls answers 202
   * (then the probe call is hung up and awaited) or `409 browser_session_unavailable`.
   */
  async registered(sessionId: string): Promise<boolean> {
    const started = await this.startCall(sessionId, '+12025550100');
    if (started.status === 409 && started.body.code === 'browser_session_unavailable') return false;
    if (started.status !== 202) throw new Error(`POST /browser-calls answered ${started.status} ${started.body.code ?? ''}`);
    const id = started.body.call.id;
    await this.hangup(id);
    await this.waitForCall(id, (call) => !call.busy, 'the probe call to end');
    return true;
  }
}

/**
 * Polls `probe` every `intervalMs` until it answers a value; fails after `timeoutMs` naming `what`. The default
 * is sized for a loaded machine, where werift's handshakes in JavaScript take many times as long as idle.
 */
export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 60_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
