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

/** Renders an error as the spec's body: `error` is the human text, `code` the stable value (spec 2.2). */
export function errorResponse(error: HttpError): Response {
  return Response.json(
    { error: error.message, code: error.code },
    { status: error.status, headers: { 'Cache-Control': 'no-store', ...error.headers } },
  );
}
