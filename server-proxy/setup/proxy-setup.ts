/**
 * What `createVoiceProxy` refuses at creation, and what its start-up read proves wrong: one line each, with a
 * stable `code`, instead of a `TypeError` from deep inside or a `404` that surfaces only in the page.
 */

/** The codes of {@link VoiceProxySetupError}; docs/errors.md, "Setting up the proxy", lists what each means. */
export type VoiceProxySetupCode = 'base_url_missing' | 'base_url_invalid' | 'api_key_missing' | 'authenticate_missing' | 'base_url_without_prefix' | 'service_unreachable';

/**
 * A wrong option of `createVoiceProxy`, or a start-up read that did not prove the service (`voice.checked`).
 *
 * @remarks
 * `message` is the one line to print (it never holds the key); `code` is stable, for a program to act on.
 */
export class VoiceProxySetupError extends Error {
  override readonly name = 'VoiceProxySetupError';

  constructor(
    readonly code: VoiceProxySetupCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An example of a base URL ending in the service's path prefix, built from the one given when that helps. */
export function prefixedExample(baseUrl: string): string {
  const url = new URL(baseUrl);
  return /\/api\/?$/.test(url.pathname) ? 'https://voice.example.com/api' : `${url.origin}${url.pathname.replace(/\/+$/, '')}/api`;
}

/** What the options must hold: each wrong one is thrown as its own line. */
interface RequiredOptions {
  baseUrl?: unknown;
  apiKey?: unknown;
  authenticate?: unknown;
}

/**
 * Checks the options every proxy needs, before anything is built; throws a {@link VoiceProxySetupError} naming
 * the first that is wrong. In JavaScript an unset `process.env.VOICE_BASE_URL` arrives here as `undefined`.
 */
export function checkRequiredOptions(options: RequiredOptions | undefined): void {
  const { baseUrl, apiKey, authenticate } = options ?? {};
  const example = 'https://voice.example.com/api';
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new VoiceProxySetupError('base_url_missing', `createVoiceProxy: baseUrl is missing; pass the voice service's base URL, ending in its path prefix, e.g. ${example} (the simulator prints it as VOICE_BASE_URL)`);
  }
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new VoiceProxySetupError('base_url_invalid', `createVoiceProxy: baseUrl ${JSON.stringify(baseUrl)} is not an http(s) URL; pass e.g. ${example}`);
  }
  if (typeof apiKey !== 'string' || apiKey.trim() === '') {
    throw new VoiceProxySetupError('api_key_missing', "createVoiceProxy: apiKey is missing; pass the voice service's API key (the simulator prints the one it takes)");
  }
  if (typeof authenticate !== 'function') {
    throw new VoiceProxySetupError('authenticate_missing', "createVoiceProxy: authenticate is missing; pass a function of the request that returns the logged-in user ({ id, name? }) or null");
  }
}
