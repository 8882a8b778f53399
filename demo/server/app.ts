import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { createDemoAuth } from './demo-auth.js';
import { createDemoCallers, type DemoCallersOptions } from './demo-callers.js';
import { createOpsHandler } from '../../server-proxy/ops/ops-handler.js';
import { createVoiceProxy, type VoiceProxy, type VoiceProxyOptions } from '../../server-proxy/setup/proxy.js';
import { demoSecurityHeaders } from './security-headers.js';

/**
 * The demo server: the voice proxy at `/voice`, its health, readiness and metrics at `/healthz`, `/readyz`
 * and `/metrics`, the demo login at `/auth`, callers on demand at `/demo/callers` (demo-callers.ts), the built
 * demo page at `/` and the built library at `/lib/`.
 */

export interface DemoAppOptions {
  voice: { baseUrl: string; apiKey: string };
  sessionSecret: string;
  /** Folder of the built demo (vite's outDir) and of the built library. */
  demoRoot: string;
  libRoot: string;
  fetch?: typeof fetch;
  /** Per-user limits for the proxy (see `VoiceProxyOptions.rateLimit`). */
  rateLimit?: VoiceProxyOptions['rateLimit'];
  /** The key's budget (see `VoiceProxyOptions.budget`). */
  budget?: VoiceProxyOptions['budget'];
  /** Log sink for proxy and login; default `console.error`. Lines never carry the key. */
  log?: (line: string) => void;
  /** The proxy's structured logger (see `VoiceProxyOptions.logger`); default pino on stderr at `logLevel`. */
  logger?: VoiceProxyOptions['logger'];
  logLevel?: VoiceProxyOptions['logLevel'];
  /** The support desk's queues (see `VoiceProxyOptions.queues`); default none. */
  queues?: VoiceProxyOptions['queues'];
  /** WebSocket URLs of a SIP edge in front of the service, which the page's CSP must let it reach; default none. */
  sipEdgeUrls?: readonly string[];
  /** Callers on demand: the embedded simulator's address and the demo's queues; default off (a real service). */
  callers?: Pick<DemoCallersOptions, 'simulatorUrl' | 'queues'>;
}

/** Builds the demo server's app; see the file comment. */
export function createDemoApp(options: DemoAppOptions): Hono {
  let proxy: VoiceProxy | undefined;
  const auth = createDemoAuth({
    secret: options.sessionSecret,
    proxy: () => proxy as VoiceProxy,
    ...(options.log ? { log: options.log } : {}),
    // A demo supervisor (a username starting with `lead`) supervises every queue a demo user may answer.
    ...(options.queues ? { supervisedQueues: options.queues.queuesFor } : {}),
  });
  proxy = createVoiceProxy({
    ...options.voice,
    authenticate: auth.authenticate,
    // npm start reads the service itself before it listens, or runs the simulator it configured.
    checkService: false,
    fetch: options.fetch,
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.log ? { log: options.log } : {}),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
    ...(options.queues === undefined ? {} : { queues: options.queues }),
  });
  const voice = proxy;
  // The demo listens on loopback: its metrics are open; a deployment puts them behind its own guard.
  const ops = createOpsHandler(voice);

  const app = new Hono();
  app.use('*', demoSecurityHeaders(options.voice.baseUrl, options.sipEdgeUrls));
  app.all('/voice/*', (c) => voice(c.req.raw));
  app.get('/healthz', (c) => ops(c.req.raw));
  app.get('/readyz', (c) => ops(c.req.raw));
  app.get('/metrics', (c) => ops(c.req.raw));
  app.route('/', auth.app);
  // Always answered, so a page asks whether callers can be sent and hears no, rather than getting index.html.
  app.route('/', createDemoCallers({ queues: [], ...options.callers, authenticate: auth.authenticate, ...(options.fetch ? { fetch: options.fetch } : {}) }));
  app.use('/lib/*', serveStatic({ root: options.libRoot, rewriteRequestPath: (path) => path.replace(/^\/lib/, '') }));
  app.use('*', serveStatic({ root: options.demoRoot }));
  app.get('*', serveStatic({ root: options.demoRoot, path: 'index.html' }));
  return app;
}
