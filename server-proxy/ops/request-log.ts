import { createHash, randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { pino } from 'pino';
import { HttpError } from '../../contract/http-error.js';
import type { ProxyMetrics } from './metrics.js';
import type { ProxyEnv } from '../routes/route-parts.js';
import { routeTemplate } from '../routes/routes.js';
import { redact } from './redact.js';
import type { Clock } from '../time/clock.js';

/**
 * One structured line per request (pino): its id, the user's subject hashed, the route, the status the page
 * got, the status the service gave (when it was asked) and the milliseconds; and the proxy's own 429s counted.
 */

/** What the proxy logs through: pino's `Logger`, or anything with the same `info` and `warn`. */
export interface ProxyLogger {
  info(fields: object, message?: string): void;
  warn(message: string): void;
}

/** The caller's `X-Request-Id` when it is a plain token, else a new one. */
const requestId = (given: string | undefined) => (given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID());

/** A subject hashed for the log: the same user is the same value, and no name or id is written. */
const hashed = (subject: string) => createHash('sha256').update(subject).digest('base64url').slice(0, 16);

/**
 * The proxy's default logger: pino writing JSON lines to stderr at `level`, each line cleared of `secrets`
 * whatever field it is in.
 */
export function defaultLogger(secrets: readonly string[], level = 'info'): ProxyLogger {
  return pino({ level, base: null, timestamp: pino.stdTimeFunctions.isoTime }, { write: (line: string) => void process.stderr.write(redact(line, secrets)) });
}

/**
 * Middleware that serves each request, then logs it through `logger` (none: no line) with the status its door
 * to the service last heard (`heardBy`), counts a `429` the proxy gave itself, and answers its id as
 * `X-Request-Id` and its time as `Server-Timing`.
 */
export function requestLog(logger: ProxyLogger | null, metrics: ProxyMetrics, clock: Clock): MiddlewareHandler<ProxyEnv> {
  return async (c, next) => {
    const id = requestId(c.req.header('x-request-id'));
    const started = clock.now();
    await next();
    const status = c.res.status;
    if (status === 429 && c.error instanceof HttpError) metrics.refused(c.error.code);
    const ms = Math.round((clock.now() - started) * 10) / 10;
    // The proxy's own time, the service's included, as browsers' devtools show it (W3C Server Timing).
    const answered = { 'X-Request-Id': id, 'Server-Timing': `proxy;dur=${ms}` };
    for (const [name, value] of Object.entries(answered)) {
      try {
        c.res.headers.set(name, value);
      } catch {
        c.header(name, value);
      }
    }
    const subject = c.get('subject') as string | undefined;
    logger?.info(
      {
        reqId: id,
        ...(subject ? { user: hashed(subject) } : {}),
        method: c.req.method,
        route: routeTemplate(c.req.path),
        status,
        upstreamStatus: c.get('upstreamStatus') ?? null,
        ms,
      },
      'request',
    );
  };
}
