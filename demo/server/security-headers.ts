import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

/**
 * The demo's security headers: Hono's `secureHeaders` with its default set (`X-Content-Type-Options: nosniff`,
 * `Referrer-Policy: no-referrer`, `X-Frame-Options`, HSTS, ...) and a CSP that allows only the page's own
 * scripts and styles (no `unsafe-eval`, no inline script) and no framing.
 */

/** `ws://host:port` (or `wss://`) of an http(s) URL: where the service's SIP WebSocket is. */
function webSocketOrigin(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol === 'https:' ? 'wss:' : 'ws:'}//${parsed.host}`;
}

/** `ws://host:port` (or `wss://`) of a WebSocket URL. */
function origin(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}

/**
 * Middleware setting the headers on every answer of the demo server.
 *
 * @param voiceBaseUrl the service's `{base_url}`: its WebSocket origin is the one place besides the page's
 *   own that the page may connect to (SIP over WebSocket goes straight to the service, DESIGN.md).
 * @param sipEdgeUrls WebSocket URLs of a SIP edge in front of the service, when the sessions name one (an edge's
 *   host is seldom the REST base's): the page may connect to their origins too.
 */
export function demoSecurityHeaders(voiceBaseUrl: string, sipEdgeUrls: readonly string[] = []): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'", webSocketOrigin(voiceBaseUrl), ...sipEdgeUrls.map(origin)],
      mediaSrc: ["'self'", 'blob:'],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });
}
