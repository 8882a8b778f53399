import { Hono } from 'hono';
import { expect, vi } from 'vitest';
import { WebSocket } from 'ws';
import { KeyRegistry, type AccountInput, type KeyInput } from '../../../simulator/service/accounts.js';
import { createRestApp, type RestOptions } from '../../../simulator/http/rest.js';
import { SipConnection } from '../../../simulator/sip/sip-connection.js';
import type { BrowserLeg, InviteOptions, Registration } from '../../../simulator/sip/sip-server.js';
import type { VoiceService } from '../../../simulator/service/voice-service.js';
import { createTestService } from '../support/test-service.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';

/**
 * The simulated service's REST app in-process (no ports), with a registry of accounts and keys that covers
 * every credential rule, a settable caller address, a fake clock for quotas, and a stand-in for the page's
 * SIP registration so that calls are admitted without a browser.
 */

/** A key in the service's format: `vsk_` and 32 letters or digits. */
const keyValue = (name: string): string => `vsk_${name.padEnd(32, '0')}`;

export const KEYS = {
  main: keyValue('Main'),
  /** Same account as `main`: it must still see none of `main`'s resources (spec 4.7). */
  sibling: keyValue('Sibling'),
  readOnly: keyValue('ReadOnly'),
  writeOnly: keyValue('WriteOnly'),
  paused: keyValue('Paused'),
  deleted: keyValue('Deleted'),
  allowListed: keyValue('AllowListed'),
  suspended: keyValue('Suspended'),
  notEntitled: keyValue('NotEntitled'),
  recording: keyValue('Recording'),
  lowQuota: keyValue('LowQuota'),
  /** Never registered. */
  unknown: keyValue('Unknown'),
} as const;

export const ACCOUNTS: AccountInput[] = [
  { id: 'acct_main', maxActiveCalls: 2 },
  { id: 'acct_recording', recordingSupported: true },
  { id: 'acct_suspended', suspended: true },
  { id: 'acct_not_entitled', voiceEntitled: false },
];

const KEY_INPUTS: KeyInput[] = [
  { value: KEYS.main, accountId: 'acct_main' },
  { value: KEYS.sibling, accountId: 'acct_main' },
  { value: KEYS.readOnly, accountId: 'acct_main', scopes: ['voice_calls.read'] },
  { value: KEYS.writeOnly, accountId: 'acct_main', scopes: ['voice_calls.write'] },
  { value: KEYS.paused, accountId: 'acct_main', status: 'paused' },
  { value: KEYS.deleted, accountId: 'acct_main', status: 'deleted' },
  { value: KEYS.allowListed, accountId: 'acct_main', allowList: ['198.51.100.0/24', '2001:db8::/32', '192.0.2.9'] },
  { value: KEYS.suspended, accountId: 'acct_suspended' },
  { value: KEYS.notEntitled, accountId: 'acct_not_entitled' },
  { value: KEYS.recording, accountId: 'acct_recording' },
  { value: KEYS.lowQuota, accountId: 'acct_main', quota: { perMinute: 3, perHour: 5 } },
];

/** The address every request comes from unless a test sets another. */
export const DEFAULT_ADDRESS = '203.0.113.7';

export interface ApiRequest {
  method?: string;
  /** Below `/api/v1/voice`. */
  path: string;
  /** The key sent as `X-Api-Key`; `null` sends none. Default {@link KEYS.main}. */
  key?: string | null;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** The page's registered agent: accepts every INVITE and never answers it, so a call stays `waiting_agent`. */
export class StubAgentConnection extends SipConnection {
  readonly invites: InviteOptions[] = [];

  constructor(world: { service: VoiceService }) {
    // ws builds its server-side sockets as `new WebSocket(null, undefined, options)`: unconnected, no I/O.
    const socket: WebSocket = Reflect.construct(WebSocket, [null, undefined, {}]);
    super(socket, world.service.sip, { realm: '127.0.0.1', host: '127.0.0.1', lookupAccount: () => undefined });
  }

  override invite(_registration: Registration, options: InviteOptions): BrowserLeg {
    this.invites.push(options);
    // A stub leg is never answered: a REFER has no dialog to go in.
    return { end: async () => 'answered' as const, refer: async () => undefined, hold: async () => undefined };
  }
}

export class RestWorld {
  readonly clock = new FakeClock(Date.UTC(2025, 0, 1));
  readonly registry = new KeyRegistry();
  readonly service = createTestService({ agentAnswerTimeoutMs: 120_000 });
  readonly agent = new StubAgentConnection(this);
  /** Every call id an answer carried, so that close() can wait for their teardowns. */
  private readonly callIds = new Set<string>();
  /** Where the next request comes from; undefined is a caller whose address is unknown. */
  address: string | undefined = DEFAULT_ADDRESS;
  readonly app: Hono;

  constructor(options: RestOptions = {}) {
    for (const account of ACCOUNTS) this.registry.addAccount(account);
    for (const key of KEY_INPUTS) this.registry.addKey(key);
    const rest = createRestApp(this.service, this.registry, { now: () => this.clock.now(), clientAddress: () => this.address, ...options });
    this.app = new Hono().route('/api/v1/voice', rest);
  }

  async send(request: ApiRequest): Promise<ApiResponse> {
    const headers = new Headers(request.headers);
    const key = request.key === undefined ? KEYS.main : request.key;
    if (key !== null) headers.set('x-api-key', key);
    let body: string | undefined;
    if (request.body !== undefined) {
      body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const method = request.method ?? (body === undefined ? 'GET' : 'POST');
    const response = await this.app.fetch(new Request(`http://sim.test/api/v1/voice${request.path}`, { method, headers, body }));
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Left empty: the caller asserts on `text`.
    }
    const call = json['call'];
    if (typeof call === 'object' && call !== null && 'id' in call && typeof call.id === 'string') this.callIds.add(call.id);
    return { status: response.status, headers: response.headers, text, json };
  }

  /** Creates the subject's agent and a session with `key`, and registers the page's agent for it. */
  async openSession(subject: string, key: string = KEYS.main): Promise<string> {
    const agent = await this.send({ key, path: '/agents', body: { name: subject, type: 'webrtc', externalSubject: subject } });
    expect([201, 409]).toContain(agent.status);
    const created = await this.send({ key, path: '/browser-sessions', headers: { 'Idempotency-Key': `session-${subject}` }, body: { externalSubject: subject } });
    expect(created.status).toBe(201);
    const sessionId = String((created.json['session'] as { id: string }).id);
    this.register(sessionId);
    return sessionId;
  }

  /** Binds the session to the stub agent, as a REGISTER from the page would (RFC 3261 section 10). */
  register(sessionId: string): void {
    const registration: Registration = {
      sessionId,
      username: `stub-${sessionId}`,
      contact: 'sip:stub@127.0.0.1;transport=ws',
      expiresAt: Date.now() + 3_600_000,
      connection: this.agent,
    };
    this.service.sip.addRegistration(registration);
  }

  /** POST /browser-calls from `session` to a number that answers at once. */
  async startCall(sessionId: string, idempotencyKey: string, key: string = KEYS.main, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
    return this.send({
      key,
      path: '/browser-calls',
      headers: { 'Idempotency-Key': idempotencyKey },
      body: { sessionId, from: '+12025550199', to: '+12025550100', ...extra },
    });
  }

  /**
   * Closes the service once no call is half-way through ending: a reset in the middle of a teardown makes
   * the runner update a call the service has forgotten (reported; browser-calls.ts is not this suite's).
   */
  async close(): Promise<void> {
    await vi.waitFor(() => {
      for (const id of this.callIds) expect(this.service.inspectCall(id)?.call.state).not.toBe('ending');
    }, { timeout: 30_000 });
    await this.service.close();
  }
}

export interface Expected {
  status: number;
  /** The error code of a refusal; omitted for a success. */
  code?: string;
  /** Headers beyond those every answer has; `null` means absent. */
  headers?: Record<string, string | RegExp | null>;
}

/**
 * Checks an answer against a row of the conformance table: status, code, and headers, including the ones
 * every answer carries (spec 4.7 `Cache-Control: no-store`; spec 8 `X-RateLimit-*`).
 */
export function expectAnswer(response: ApiResponse, expected: Expected): void {
  expect({ status: response.status, code: response.json['code'] }).toEqual({ status: expected.status, code: expected.code });
  if (expected.code !== undefined) {
    // spec 2.2: `error` always, human-readable; no `success` on error bodies.
    expect(response.json['error']).toEqual(expect.any(String));
    expect(response.json).not.toHaveProperty('success');
  }
  expect(response.headers.get('cache-control')).toBe('no-store');
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(response.headers.get(name), name).toMatch(/^\d+$/);
  }
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    const actual = response.headers.get(name);
    if (value === null) expect(actual, name).toBeNull();
    else if (typeof value === 'string') expect(actual, name).toBe(value);
    else expect(actual, name).toMatch(value);
  }
}
