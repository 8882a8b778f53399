import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { finishApp } from '../contract/http-error.js';
import { KeyRegistry, VOICE_SCOPES, type Quota } from './service/accounts.js';
import { createControlApp } from './http/control.js';
import { injectFaults } from './http/fault-injection.js';
import { FaultPlan } from './service/faults.js';
import { IdempotencyStore } from './http/idempotency.js';
import type { EdgeProfile } from './sip/edge/edge-profile.js';
import { EdgeState } from './sip/edge/edge-state.js';
import type { CodecProfile } from './media/audio-codec.js';
import type { MediaAddressMode } from './media/media-address-mode.js';
import { DEFAULT_QUOTA, RateLimiter } from './http/rate-limit.js';
import type { RecipientTimings } from './service/recipients.js';
import { createRestApp } from './http/rest.js';
import { VoiceService } from './service/voice-service.js';

/**
 * Starts the simulated voice service: REST under `/api/v1/voice`, SIP over WebSocket at `/sip`, and the
 * control API under `/__sim/`, all on one loopback port (docs/simulator.md).
 */

/** Recipient timings other than `noAnswerMs` default to the documented figures (`DEFAULT_RECIPIENT_TIMINGS`). */
export interface SimulatorOptions extends Omit<RecipientTimings, 'noAnswerMs'> {
  apiKey: string;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  sessionTtlSeconds?: number;
  registrationMaxSeconds?: number;
  noAnswerMs?: number;
  agentAnswerTimeoutMs?: number;
  queueAnswerTimeoutMs?: number;
  toneMs?: number;
  /**
   * Where the calls' media gathers and whom it may pair with (`selectMediaAddresses`): `host` (the default) offers this
   * machine's interface addresses beside 127.0.0.1, which a browser with default settings pairs with; `loopback`
   * offers 127.0.0.1 alone, for browsers started with loopback switches.
   */
  mediaAddresses?: MediaAddressMode;
  /** The codecs each call offers the page (`CodecProfile`): `opus` (the default), Opus then PCMU; `pcmu-only`. */
  codecs?: CodecProfile;
  /**
   * SIP over UDP on 127.0.0.1 at this port (0: a free one), where an edge in front of the simulator relays the
   * pages' SIP (`SipUdpSide`); unset, the simulator speaks SIP over its WebSocket only.
   */
  sipUdpPort?: number;
  /**
   * The edge's WebSocket URL: the `websocketUrl` the sessions give the pages instead of the simulator's `/sip`;
   * only with {@link SimulatorOptions.sipUdpPort}, where the edge relays to.
   */
  sipEdgeUrl?: string;
  /** How long a call whose SIP WebSocket closed lives on without audio from the browser; default 5000. */
  mediaTimeoutMs?: number;
  /** Per-key quota (spec 8); default 100 requests a minute and 10,000 an hour. */
  quota?: Partial<Quota>;
  /** The quota of `apiKey` alone, one the provider raised (spec 8: the default is a default); default `quota`. */
  keyQuota?: Partial<Quota>;
  /** The SIP edge the service speaks as (`EDGE_PROFILES`), at start and after a reset; default `kamailio`. */
  edgeProfile?: EdgeProfile;
  /** Where coturn's `turnserver` is, started when a network profile first needs TURN; default Debian's `/usr/bin/turnserver`. */
  turnserverPath?: string;
  /** Accounts and keys; default one account, which supports recording, with `apiKey` holding both voice scopes. */
  registry?: KeyRegistry;
}

/** A started simulator: where it listens, its service, and how to stop it. */
export interface RunningSimulator {
  /** e.g. `http://127.0.0.1:8090` */
  url: string;
  /** The REST base the proxy uses as `VOICE_BASE_URL`: `{url}/api`. */
  baseUrl: string;
  port: number;
  /** The port of SIP over UDP, when {@link SimulatorOptions.sipUdpPort} was given. */
  sipUdpPort?: number;
  service: VoiceService;
  close(): Promise<void>;
}

/** The service behind the REST surface, with the documented defaults for what `options` leaves out. */
function createService(options: SimulatorOptions, host: string, publicUrl: () => string, faults: FaultPlan): VoiceService {
  return new VoiceService({
    publicUrl,
    host,
    sessionTtlSeconds: options.sessionTtlSeconds ?? 3600,
    registrationMaxSeconds: options.registrationMaxSeconds ?? 600,
    noAnswerMs: options.noAnswerMs ?? 8000,
    ringMs: options.ringMs,
    slowAnswerMs: options.slowAnswerMs,
    recipientHangupMs: options.recipientHangupMs,
    outcomeUnknownMs: options.outcomeUnknownMs,
    agentAnswerTimeoutMs: options.agentAnswerTimeoutMs ?? 30_000,
    queueAnswerTimeoutMs: options.queueAnswerTimeoutMs,
    mediaTimeoutMs: options.mediaTimeoutMs,
    toneMs: options.toneMs ?? 1000,
    mediaAddresses: options.mediaAddresses ?? 'host',
    codecs: options.codecs ?? 'opus',
    webhookFaults: faults,
    edge: new EdgeState(options.edgeProfile),
    turnserverPath: options.turnserverPath,
  });
}

/** The HTTP app on the simulator's one port: faults, then REST under `/api/v1/voice`, control under `/__sim`. */
function simulatorApp(service: VoiceService, faults: FaultPlan, options: SimulatorOptions, url: () => string): Hono<{ Bindings: HttpBindings }> {
  // The started key's account supports recording (spec 2.6), so that a page can be developed against it; a key made
  // through the control API starts without it, as an account of the real service does.
  const registry = options.registry ?? KeyRegistry.fromScopes(new Map([[options.apiKey, { scopes: VOICE_SCOPES, ...(options.keyQuota ? { quota: options.keyQuota } : {}) }]]), { id: 'acct_default', recordingSupported: true });
  const limiter = new RateLimiter();
  const idempotency = new IdempotencyStore();
  const forget = (): void => {
    limiter.clear();
    idempotency.clear();
  };
  const app = new Hono<{ Bindings: HttpBindings }>()
    .use('/api/*', injectFaults(faults, service))
    .route('/api/v1/voice', createRestApp(service, registry, { quota: options.quota, limiter, idempotency }))
    .route('/__sim', createControlApp({ service, faults, registry, defaultQuota: { ...DEFAULT_QUOTA, ...options.quota }, forget }))
    .get('/', (c) => c.json({ service: 'voice-browser simulator', rest: `${url()}/api/v1/voice`, sip: `${url().replace(/^http/, 'ws')}/sip` }));
  finishApp(app, 'simulator');
  return app;
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
  // One plan: the requests meet its request faults, the service's webhooks its webhook faults.
  const faults = new FaultPlan();
  const service = createService(options, host, () => url, faults);
  const server: Server = createServer(getRequestListener(simulatorApp(service, faults, options, () => url).fetch));
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
  if (options.sipEdgeUrl !== undefined && options.sipUdpPort === undefined) throw new Error('sipEdgeUrl needs sipUdpPort: the edge relays to the simulator\'s SIP over UDP');
  const sipUdpPort = options.sipUdpPort === undefined ? undefined : await service.sip.listenUdp(options.sipUdpPort, options.sipEdgeUrl);
  return {
    url,
    baseUrl: `${url}/api`,
    port,
    ...(sipUdpPort === undefined ? {} : { sipUdpPort }),
    service,
    close: async () => {
      await service.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
