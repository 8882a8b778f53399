import type { MiddlewareHandler } from 'hono';
import { HttpError } from '../../contract/http-error.js';

/**
 * Refuses cross-site requests that would change something (login CSRF, a foreign page hanging up a call).
 *
 * @remarks
 * The browser's own word decides: `Sec-Fetch-Site` (Fetch Metadata) when sent, else `Origin`. A request
 * with neither did not come from a browser page (curl, a server, a test) and carries no ambient cookie
 * risk, so it passes. Hono's `csrf` middleware checks only form-like content types and answers plain text;
 * this one checks every mutating request and answers the spec's error body.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Options of {@link refuseCrossSite}. */
export interface CrossSiteOptions {
  /**
   * Origins besides the request's own that may mutate, e.g. `https://app.example.com` when a TLS
   * terminator in front makes the request URL `http://`.
   */
  trustedOrigins?: readonly string[];
}

/** Whether the request may mutate state on behalf of the user whose cookies it carries. */
export function isSameSiteRequest(request: Request, options: CrossSiteOptions = {}): boolean {
  if (SAFE_METHODS.has(request.method)) return true;
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin';
  const origin = request.headers.get('origin');
  if (origin === null) return true;
  return origin === new URL(request.url).origin || (options.trustedOrigins ?? []).includes(origin);
}

/** Middleware: a cross-site mutation answers `403 cross_site_request` before anything else runs. */
export function refuseCrossSite(options: CrossSiteOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    if (!isSameSiteRequest(c.req.raw, options)) {
      throw new HttpError(403, 'cross_site_request', 'requests that change something must come from this site’s own pages');
    }
    await next();
  };
}
