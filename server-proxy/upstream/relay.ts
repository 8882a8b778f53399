import { errorResponse, HttpError } from '../../contract/http-error.js';
import type { UpstreamResponse } from './upstream.js';

/**
 * How the service's answers reach the page: passed through in the spec's shape, except a refusal of the
 * key itself, which the page can do nothing about and must learn nothing from.
 */

/** An upstream refusal of our own key (spec 5): invalid, suspended, not entitled or lacking a scope. */
export function keyRefused(response: UpstreamResponse): boolean {
  const code = (response.body as { code?: unknown } | undefined)?.code;
  return response.status === 401 || (response.status === 403 && (code === 'account_suspended' || code === 'voice_not_entitled' || code === 'insufficient_scope'));
}

/**
 * A refused key is a definite answer: the service did nothing (spec 5.3, 5.4: refused at request time), so
 * the page gets a 4xx, which the library reads as "nothing was created" (spec 7) and leaves `busy` false.
 * A 5xx would read as "maybe created": a call outcome nobody could ever resolve, since every read is
 * refused too. The answer names neither the key nor the service's reason; the log line does.
 */
function voiceUnavailable(response: UpstreamResponse, log: (message: string) => void): HttpError {
  const code = (response.body as { code?: unknown } | undefined)?.code;
  // Only a code shaped like the spec's (section 7) reaches the log: the body is the service's text.
  const reason = typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? ` ${code}` : '';
  log(`voice proxy: the service refused the API key (${response.status}${reason}); fix the key or the account`);
  return new HttpError(403, 'browser_voice_unavailable', 'browser calling is not available on this server; nothing was done');
}

/**
 * Turns upstream answers into page answers, logging key refusals through `log`; `headers` (the integrator's
 * own) go on every answer.
 */
export function createRelay(log: (message: string) => void, headers: Readonly<Record<string, string>> = {}) {
  return {
    /** The service's answer, as the page gets it: status, body and the rate-limit headers. */
    relay(response: UpstreamResponse): Response {
      if (keyRefused(response)) return errorResponse(voiceUnavailable(response, log), headers);
      return new Response(response.text || '{}', {
        status: response.status,
        headers: { ...headers, ...response.headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
      });
    },
    /** Passes a 2xx through; anything else becomes the error the page sees. */
    ensureOk(response: UpstreamResponse): UpstreamResponse {
      if (response.status >= 200 && response.status < 300) return response;
      if (keyRefused(response)) throw voiceUnavailable(response, log);
      const body = response.body as { code?: unknown; error?: unknown } | undefined;
      const code = typeof body?.code === 'string' ? body.code : 'upstream_error';
      const message = typeof body?.error === 'string' ? body.error : 'the voice service refused the request';
      throw new HttpError(response.status, code, message, response.headers);
    },
  };
}

/** What {@link createRelay} returns. */
export type Relay = ReturnType<typeof createRelay>;
