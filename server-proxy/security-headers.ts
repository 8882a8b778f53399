import type { MiddlewareHandler } from 'hono';

/**
 * The demo's security headers: a CSP that allows only the page's own scripts and styles (no `unsafe-eval`,
 * no inline script), `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`, no framing, and the
 * rest of the set Hono's `secureHeaders` sends by default.
 *
 * @remarks
 * A plain header object, built once, rather than Hono's middleware: the proxy writes it into each answer as
 * it builds it (the `headers` option of `createVoiceProxy`). A middleware that edits a finished answer turns
 * the Node adapter's plain headers into a WHATWG `Headers` and back, a large part of the proxy's own work on
 * a poll (`npm run bench`).
 */

/** `ws://host:port` (or `wss://`) of an http(s) URL: where the service's SIP WebSocket is. */
function webSocketOrigin(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol === 'https:' ? 'wss:' : 'ws:'}//${parsed.host}`;
}

/**
 * The headers of every answer of the demo server.
 *
 * @param voiceBaseUrl the service's `{base_url}`: its WebSocket origin is the one place besides the page's
 *   own that the page may connect to (SIP over WebSocket goes straight to the service, DESIGN.md).
 */
export function demoSecurityHeaders(voiceBaseUrl: string): Readonly<Record<string, string>> {
  const policy = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${webSocketOrigin(voiceBaseUrl)}`,
    "media-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  return Object.freeze({
    'Content-Security-Policy': policy.join('; '),
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Origin-Agent-Cluster': '?1',
    'Referrer-Policy': 'no-referrer',
    'Strict-Transport-Security': 'max-age=15552000; includeSubDomains',
    'X-Content-Type-Options': 'nosniff',
    'X-DNS-Prefetch-Control': 'off',
    'X-Download-Options': 'noopen',
    'X-Frame-Options': 'SAMEORIGIN',
    'X-Permitted-Cross-Domain-Policies': 'none',
    // 0 turns off the legacy XSS auditor, which could itself be abused; the CSP is the protection.
    'X-XSS-Protection': '0',
  });
}

/** Middleware setting `headers` on every answer it sees (the login, static files, fallbacks). */
export function withHeaders(headers: Readonly<Record<string, string>>): MiddlewareHandler {
  const entries = Object.entries(headers);
  return async (c, next) => {
    await next();
    for (const [name, value] of entries) c.res.headers.set(name, value);
  };
}
