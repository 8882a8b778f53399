import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { createDemoAuth } from './demo-auth.js';
import { createVoiceProxy, type VoiceProxy, type VoiceProxyOptions } from './proxy.js';
import { demoSecurityHeaders } from './security-headers.js';

/**
 * The demo server: the voice proxy at `/voice`, the demo login at `/auth`, the built demo page at `/`
 * and the built library at `/lib/`.
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
}

/** Builds the demo server's app; see the file comment. */
export function createDemoApp(options: DemoAppOptions): Hono {
  let proxy: VoiceProxy | undefined;
  const auth = createDemoAuth({ secret: options.sessionSecret, proxy: () => proxy as VoiceProxy, ...(options.log ? { log: options.log } : {}) });
  proxy = createVoiceProxy({
    ...options.voice,
    authenticate: auth.authenticate,
    fetch: options.fetch,
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.log ? { log: options.log } : {}),
  });
  const voice = proxy;

  const app = new Hono();
  app.use('*', demoSecurityHeaders(options.voice.baseUrl));
  app.all('/voice/*', (c) => voice(c.req.raw));
  app.route('/', auth.app);
  app.use('/lib/*', serveStatic({ root: options.libRoot, rewriteRequestPath: (path) => path.replace(/^\/lib/, '') }));
  app.use('*', serveStatic({ root: options.demoRoot }));
  app.get('*', serveStatic({ root: options.demoRoot, path: 'index.html' }));
  return app;
}
