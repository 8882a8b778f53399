import type { Env, Hono, MiddlewareHandler } from 'hono';

/**
 * The service's contract, its error shape (spec 2.2, 7): every rejection of the proxy and of the simulator is
 * `{error, code, message}` with a status, built here. contract/ imports neither of them, so both import it.
 */

/**
 * One error type for every HTTP rejection of the proxy and the simulator (Hono's `HTTPException` is the model).
 *
 * @remarks
 * `code` is the stable, machine-readable value from the spec's lists (spec 2.2, 7); `message` says what to do.
 * {@link errorResponse} is the one place that turns it into the `{error, code, message}` body.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Renders an error as the spec's body: `error` is the human text, `code` the stable value (spec 2.2).
 * `headers` (an app's own, e.g. security headers) go under the error's own and `no-store`.
 */
export function errorResponse(error: HttpError, headers: Readonly<Record<string, string>> = {}): Response {
  return Response.json(
    { error: error.message, code: error.code },
    { status: error.status, headers: { ...headers, 'Cache-Control': 'no-store', ...error.headers } },
  );
}

/** Marks every answer of an app `Cache-Control: no-store` (spec 4.7: reads never cached, credentials no-store). */
export const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  // In place, as Hono's own secureHeaders does: `c.header()` on a finished answer copies it, and on Node
  // that turns its body into a stream. A response whose headers are immutable (one straight from `fetch`) is
  // copied instead.
  try {
    c.res.headers.set('Cache-Control', 'no-store');
  } catch {
    c.header('Cache-Control', 'no-store');
  }
};

/**
 * The one error handler: an HttpError becomes its body; anything else is logged under `label` and a plain 500.
 * `log` (default `console.error`) lets the proxy pass a sink that redacts its key; `headers` go on every answer.
 */
export function onHttpError(label: string, log: (...args: unknown[]) => void = console.error, headers: Readonly<Record<string, string>> = {}): (error: Error) => Response {
  return (error) => {
    if (error instanceof HttpError) return errorResponse(error, headers);
    log(`${label}: unexpected error`, error);
    return Response.json({ error: 'internal error', code: 'internal_error' }, { status: 500, headers: { ...headers, 'Cache-Control': 'no-store' } });
  };
}

/**
 * Ends an app the same way everywhere: an unknown route is `404 not_found` with a code, errors go through
 * {@link onHttpError}.
 *
 * @remarks
 * A catch-all route rather than `notFound`: Hono ignores a sub-app's `notFound` once it is mounted with
 * `route`, while a route keeps working mounted or not.
 */
export function finishApp<E extends Env>(
  app: Hono<E>,
  label: string,
  notFoundMessage = 'no such route',
  log?: (...args: unknown[]) => void,
  headers?: Readonly<Record<string, string>>,
): void {
  app.all('*', () => {
    throw new HttpError(404, 'not_found', notFoundMessage);
  });
  app.onError(onHttpError(label, log, headers));
}
