import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { errorResponse, finishApp, HttpError } from '../contract/http-error.js';
import { KeyRegistry, VOICE_SCOPES, type Quota } from './accounts.js';
import { createControlApp } from './control.js';
import { FaultPlan } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import { DEFAULT_QUOTA, RateLimiter } from './rate-limit.js';
import type { RecipientTimings } from './recipients.js';
import { createRestApp } from './rest.js';
import { VoiceService } from './voice-service.js';

/**
 * Starts the simulated voice service: REST under `/api/v1/voice`, SIP over WebSocket at `/sip`, and the
 * control API under `/__sim/`, all on one loopback port (DESIGN.md).
 */

/** Recipient timings other than `noAnswerMs` default to the documented figures (recipients.ts). */
export interface SimulatorOptions extends Omit<RecipientTimings, 'noAnswerMs'> {
  apiKey: string;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  sessionTtlSeconds?: number;
  registrationMaxSeconds?: number;
  noAnswerMs?: number;
  agentAnswerTimeoutMs?: number;
  toneMs?: number;
  /** How long a call whose SIP WebSocket closed lives on without audio from the browser; default 5000. */
  mediaTimeoutMs?: number;
  /** Per-key quota (spec 8); default 100 requests a minute and 10,000 an hour. */
  quota?: Partial<Quota>;
  /** Accounts and keys; default one account with `apiKey` holding both voice scopes. */
  registry?: KeyRegistry;
}

export interface RunningSimulator {
  /** e.g. `http://127.0.0.1:8090` */
  url: string;
  /** The REST base the proxy uses as `VOICE_BASE_URL`: `{url}/api`. */
  baseUrl: string;
  port: number;
  service: VoiceService;
  close(): Promise<void>;
}

/**
 * The `withdraw-invite` fault's work once the request ran: withdraws the INVITE of the call a 2xx answer names
 * (`call.id` of its JSON body). Any other answer placed no call, and an INVITE the page already answered can no
 * longer be withdrawn: both are let go as they are.
 */
async function withdrawInviteOf(service: VoiceService, response: Response): Promise<void> {
  if (!response.ok) return;
  const body: unknown = await response.clone().json().catch(() => undefined);
  const call = typeof body === 'object' && body !== null && 'call' in body ? body.call : undefined;
  const id = typeof call === 'object' && call !== null && 'id' in call && typeof call.id === 'string' ? call.id : undefined;
  if (id === undefined) return;
  try {
    await service.withdrawInvite(id);
  } catch (error) {
    if (!(error instanceof HttpError && error.code === 'invite_not_ringing')) throw error;
  }
}

/**
 * Starts the simulated voice service on one loopback port.
 *
 * @example
 * ```ts
 * const sim = await startSimulator({ apiKey: 'vsk_…', port: 0, noAnswerMs: 1000 });
 * await fetch(`${sim.url}/__sim/reset`, { method: 'POST' });
 * await sim.close();
 * ```
 */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const host = options.host ?? '127.0.0.1';
  let url = '';
  const service = new VoiceService({
    publicUrl: () => url,
    host,
    sessionTtlSeconds: options.sessionTtlSeconds ?? 3600,
    registrationMaxSeconds: options.registrationMaxSeconds ?? 600,
    noAnswerMs: options.noAnswerMs ?? 8000,
    ringMs: options.ringMs,
    slowAnswerMs: options.slowAnswerMs,
    recipientHangupMs: options.recipientHangupMs,
    outcomeUnknownMs: options.outcomeUnknownMs,
    agentAnswerTimeoutMs: options.agentAnswerTimeoutMs ?? 30_000,
    mediaTimeoutMs: options.mediaTimeoutMs,
    toneMs: options.toneMs ?? 1000,
  });
  const registry = options.registry ?? KeyRegistry.fromScopes(new Map([[options.apiKey, { scopes: VOICE_SCOPES }]]));
  const limiter = new RateLimiter();
  const idempotency = new IdempotencyStore();
  const faults = new FaultPlan();
  const app = new Hono<{ Bindings: HttpBindings }>()
    .use('/api/*', async (c, next) => {
      const fault = faults.take(c.req.method, c.req.path);
      if (!fault) return next();
      switch (fault.fault) {
        case 'error': {
          const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
          return errorResponse(new HttpError(fault.status, fault.code, fault.message ?? 'injected by POST /__sim/faults', headers));
        }
        case 'delay':
          await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
          return next();
        case 'drop-response':
          // The work is done; the answer is lost on the way (spec 7: the caller keeps its key and retries).
          await next();
          c.env.incoming.socket.destroy();
          return;
        case 'close-sip-socket':
          await next();
          service.closeSipSockets(fault.sessionId);
          return;
        case 'withdraw-invite':
          await next();
          // The answer, as built, waits until the CANCEL was answered and the call failed: INVITE, CANCEL,
          // then the 202, the order seen behind a SIP proxy (README).
          await withdrawInviteOf(service, c.res);
          return;
      }
    })
    .route('/api/v1/voice', createRestApp(service, registry, { quota: options.quota, limiter, idempotency }))
    .route(
      '/__sim',
      createControlApp({
        service,
        faults,
        registry,
        defaultQuota: { ...DEFAULT_QUOTA, ...options.quota },
        forget: () => {
          limiter.clear();
          idempotency.clear();
        },
      }),
    )
    .get('/', (c) => c.json({ service: 'voice-browser simulator', rest: `${url}/api/v1/voice`, sip: `${url.replace(/^http/, 'ws')}/sip` }));
  finishApp(app, 'simulator');

  const server: Server = createServer(getRequestListener(app.fetch));
  server.on('upgrade', (request, socket, head) => {
    if (new URL(request.url ?? '/', 'http://x').pathname === '/sip') service.sip.handleUpgrade(request, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  url = `http://${host}:${port}`;
  return {
    url,
    baseUrl: `${url}/api`,
    port,
    service,
    close: async () => {
      await service.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
