import { HttpError } from '../../contract/http-error.js';
import { prefixedExample, VoiceProxySetupError } from './proxy-setup.js';
import type { Upstream } from '../upstream/upstream.js';

/**
 * The proxy's one read of the service at creation. A base URL without the service's path prefix (`/api`)
 * otherwise shows only in the page, as a `404 no such route` relayed from wherever the URL lands; this read
 * tells it at start-up, in one log line and in `voice.checked`, and the proxy then answers every request
 * `503 base_url_without_prefix` instead of relaying answers that are not the service's.
 */

/** The read: the current session of a subject no user has (spec: answered `200` with nulls; one request of the quota). */
const PROBE = { method: 'GET', path: '/browser-sessions', query: { externalSubject: 'voice-proxy-start-up-check' } } as const;

/** What every request gets once the read proved the base URL wrong: the page is told to look at the server. */
const MISCONFIGURED = new HttpError(503, 'base_url_without_prefix', "the server's voice proxy is misconfigured: its base URL lacks the voice service's path prefix (e.g. /api); the server's log says more");

/** The read's outcome: proven (nothing), proven wrong, or unproven (no answer, or a 5xx). */
interface Outcome {
  wrong?: VoiceProxySetupError;
  unproven?: VoiceProxySetupError;
}

async function readService(upstream: Upstream, baseUrl: string): Promise<Outcome> {
  const where = `the voice service at ${baseUrl}`;
  const wrong = (what: string) =>
    new VoiceProxySetupError('base_url_without_prefix', `voice proxy: ${where} ${what} to GET /v1/voice/browser-sessions; the base URL must end in the service's path prefix, e.g. ${prefixedExample(baseUrl)}`);
  try {
    const response = await upstream(PROBE);
    // The route exists at every service of the spec: a 404 means the URL reaches something else.
    if (response.status === 404) return { wrong: wrong('answered 404') };
    if (response.status >= 500) return { unproven: new VoiceProxySetupError('service_unreachable', `voice proxy: ${where} answered ${response.status} to the start-up read; requests go on, /readyz tells when it answers`) };
    return {};
  } catch (error) {
    if (error instanceof HttpError && error.code === 'upstream_invalid_response') return { wrong: wrong('answered something that is not JSON') };
    const why = error instanceof HttpError ? error.code : 'no answer';
    return { unproven: new VoiceProxySetupError('service_unreachable', `voice proxy: ${where} did not answer the start-up read (${why}); requests go on, /readyz tells when it answers`, { cause: error }) };
  }
}

/** The start-up read, begun at once, and what requests learn from it. */
export interface StartCheck {
  /** Resolves when the read proved the service; rejects with the {@link VoiceProxySetupError} that says why not. */
  checked: Promise<void>;
  /** Waits for the read; the error every request gets when it proved the base URL wrong, else undefined. */
  refusal(): Promise<HttpError | undefined>;
}

/** Reads the service once through `upstream`; what it finds wrong or unproven is one line in `log`. */
export function createStartCheck(upstream: Upstream, baseUrl: string, log: (line: string) => void): StartCheck {
  const outcome = readService(upstream, baseUrl).then((read) => {
    const problem = read.wrong ?? read.unproven;
    if (problem) log(problem.message);
    return read;
  });
  const checked = outcome.then((read) => {
    const problem = read.wrong ?? read.unproven;
    if (problem) throw problem;
  });
  // Awaiting it is the app's choice: a rejection nobody awaits must not end the process.
  checked.catch(() => undefined);
  return { checked, refusal: async () => ((await outcome).wrong ? MISCONFIGURED : undefined) };
}
