import type { MiddlewareHandler } from 'hono';
import { HttpError } from '../../contract/http-error.js';

/**
 * A request whose body an earlier body parser already read (an app-wide `express.json()` before the proxy)
 * reaches the proxy with its headers promising a body and a stream that gives none; every call would then fail
 * as invalid input. This guard tells it apart and names the fix. A parser that keeps the bytes as `rawBody`
 * (`express.json({ verify })`) hands them on: `@hono/node-server` builds the request's body from `rawBody`.
 */

const FIX =
  'mount the voice proxy before the body parser (app.use(express.json()) after it), or keep the raw body for it: express.json({ verify: (req, res, buf) => { req.rawBody = buf; } })';

/**
 * Refuses with `500 body_already_read` a request that declares a body (`Content-Length` above 0) and carries
 * none, saying so once in `log`; hands the bytes it read on to the routes otherwise.
 */
export function refuseConsumedBody(log: (line: string) => void): MiddlewareHandler {
  let told = false;
  return async (c, next) => {
    const declared = Number(c.req.header('content-length'));
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || !(declared > 0)) return next();
    const bytes = await c.req.raw.arrayBuffer();
    if (bytes.byteLength === 0) {
      if (!told) log(`voice proxy: a request's body was read before the proxy by an earlier body parser; ${FIX}`);
      told = true;
      throw new HttpError(500, 'body_already_read', `the request's body was read before the voice proxy by another body parser: ${FIX}`);
    }
    // The stream is read: the routes get the same bytes in a request of their own (as Hono's bodyLimit does).
    c.req.raw = new Request(c.req.raw, { body: bytes });
    await next();
  };
}
