import { ConfigError } from '../../contract/environment.js';
import { HttpError } from '../../contract/http-error.js';
import { keyRefused } from '../../server-proxy/upstream/relay.js';
import { createUpstream, type UpstreamOptions } from '../../server-proxy/upstream/upstream.js';

/**
 * `npm start` with VOICE_BASE_URL: before the demo listens, one read proves that the service answers and
 * takes the key, so a wrong URL or key is one line at start-up instead of an error at the first Connect.
 */

/** The read: the current session of a subject no user has (it spends one request of the key's quota). */
const PROBE = { method: 'GET', path: '/browser-sessions', query: { externalSubject: 'voice-browser-start-up-check' } } as const;

/**
 * Resolves when the service at `baseUrl` answers with the key accepted; otherwise throws a
 * {@link ConfigError} whose message is the one line to print.
 */
export async function checkService(options: UpstreamOptions): Promise<void> {
  const upstream = createUpstream({ timeoutMs: 5000, ...options });
  const where = `the voice service at VOICE_BASE_URL (${options.baseUrl})`;
  let response;
  try {
    response = await upstream(PROBE);
  } catch (error) {
    if (error instanceof HttpError && error.code === 'upstream_invalid_response') {
      throw new ConfigError(`start-up: ${where} answered something that is not its API (not JSON at ${PROBE.path}); VOICE_BASE_URL must include /api`);
    }
    const why = error instanceof HttpError ? error.code : 'no answer';
    throw new ConfigError(`start-up: ${where} did not answer (${why}); check the URL and that it is reachable from here`);
  }
  if (keyRefused(response)) {
    const code = (response.body as { code?: unknown } | undefined)?.code;
    throw new ConfigError(`start-up: ${where} refused VOICE_API_KEY (${response.status}${typeof code === 'string' ? ` ${code}` : ''}); fix the key or the account`);
  }
  if (response.status === 404) {
    throw new ConfigError(`start-up: ${where} has no browser voice API (404 on ${PROBE.path}); VOICE_BASE_URL must include /api`);
  }
  if (response.status >= 500) {
    throw new ConfigError(`start-up: ${where} answered ${response.status}; try again, or check the service`);
  }
}
