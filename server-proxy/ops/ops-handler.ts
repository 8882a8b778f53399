import type { VoiceProxy } from '../setup/proxy.js';

/**
 * The operator's routes, apart from the page's `/voice` ones and with no login: `GET /healthz` (the process
 * is up), `GET /readyz` (the service, and Redis when configured, answer: 200, else 503 naming what does not),
 * and `GET /metrics` (Prometheus text format). Routed by the path's last segment, so it mounts under any
 * prefix; put it behind your own guard to keep the metrics private, or turn them off.
 */

/** Options of {@link createOpsHandler}. */
export interface OpsHandlerOptions {
  /** Serve `/metrics`; default true. `false` answers it 404, as any unknown path. */
  metrics?: boolean;
}

const json = (status: number, body: unknown) => Response.json(body, { status, headers: { 'Cache-Control': 'no-store' } });

/**
 * A `(Request) => Promise<Response>` handler for `proxy`'s health, readiness and metrics.
 *
 * @example
 * ```ts
 * const ops = createOpsHandler(voice);
 * app.get('/healthz', (c) => ops(c.req.raw));
 * app.get('/readyz', (c) => ops(c.req.raw));
 * app.get('/metrics', requireOperator, (c) => ops(c.req.raw)); // your own guard
 * ```
 */
export function createOpsHandler(proxy: Pick<VoiceProxy, 'metrics' | 'ready'>, options: OpsHandlerOptions = {}): (request: Request) => Promise<Response> {
  const metrics = options.metrics ?? true;
  return async (request) => {
    const name = new URL(request.url).pathname.replace(/\/+$/, '').split('/').pop();
    if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { error: 'only GET', code: 'method_not_allowed' });
    if (name === 'healthz') return json(200, { status: 'ok' });
    if (name === 'readyz') {
      const readiness = await proxy.ready();
      return json(readiness.ready ? 200 : 503, { status: readiness.ready ? 'ready' : 'not_ready', checks: readiness.checks });
    }
    if (name === 'metrics' && metrics) {
      return new Response(await proxy.metrics.metrics(), { headers: { 'Content-Type': proxy.metrics.contentType, 'Cache-Control': 'no-store' } });
    }
    return json(404, { error: 'no such route', code: 'not_found' });
  };
}
