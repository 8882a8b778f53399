import { describe, expect, it } from 'vitest';
import { createVoiceProxy, type VoiceProxyOptions } from '../../../server-proxy/setup/proxy.js';
import { VoiceProxySetupError } from '../../../server-proxy/setup/proxy-setup.js';
import { API_KEY, BASE_URL, createSimulator, testAuthenticate, type Fetch } from '../support/harness.js';
import { freePort } from '../support/redis-server.js';

/**
 * `createVoiceProxy` refuses what it cannot work with at creation, one line and a stable code each, and its
 * start-up read tells a base URL that misses the service's path prefix before any page asks.
 */

/** What `createVoiceProxy` threw, or undefined. */
function thrownBy(options: unknown): unknown {
  try {
    createVoiceProxy(options as VoiceProxyOptions);
    return undefined;
  } catch (error) {
    return error;
  }
}

const failure = (promise: Promise<void>) => promise.then(() => undefined, (error: unknown) => error);

/** A proxy over `fetch` with its start-up read on; its log lines and every URL it asked for are kept. */
function checkedProxy(baseUrl: string, fetch?: Fetch) {
  const lines: string[] = [];
  const asked: string[] = [];
  const counting: Fetch | undefined = fetch && (async (input, init) => (asked.push(String(input)), fetch(input, init)));
  const proxy = createVoiceProxy({ baseUrl, apiKey: API_KEY, authenticate: testAuthenticate, logger: false, log: (line) => lines.push(line), ...(counting ? { fetch: counting } : {}) });
  return { proxy, lines, asked };
}

const connect = (proxy: ReturnType<typeof createVoiceProxy>, user?: string) =>
  proxy(new Request('http://app.test/voice/browser-sessions', { method: 'POST', headers: { 'content-type': 'application/json', ...(user ? { 'x-test-user': user } : {}) }, body: '{}' }));

describe('createVoiceProxy options', () => {
  const good = { baseUrl: BASE_URL, apiKey: API_KEY, authenticate: testAuthenticate, checkService: false };
  const cases: Array<[string, unknown, string, string]> = [
    ['no options at all', undefined, 'base_url_missing', "createVoiceProxy: baseUrl is missing; pass the voice service's base URL, ending in its path prefix, e.g. https://voice.example.com/api (the simulator prints it as VOICE_BASE_URL)"],
    ['an unset VOICE_BASE_URL', { ...good, baseUrl: undefined }, 'base_url_missing', "createVoiceProxy: baseUrl is missing; pass the voice service's base URL, ending in its path prefix, e.g. https://voice.example.com/api (the simulator prints it as VOICE_BASE_URL)"],
    ['a base URL without a scheme', { ...good, baseUrl: 'voice.example.com/api' }, 'base_url_invalid', 'createVoiceProxy: baseUrl "voice.example.com/api" is not an http(s) URL; pass e.g. https://voice.example.com/api'],
    ['a base URL of another scheme', { ...good, baseUrl: 'ws://voice.example.com/api' }, 'base_url_invalid', 'createVoiceProxy: baseUrl "ws://voice.example.com/api" is not an http(s) URL; pass e.g. https://voice.example.com/api'],
    ['an unset VOICE_API_KEY', { ...good, apiKey: undefined }, 'api_key_missing', "createVoiceProxy: apiKey is missing; pass the voice service's API key (the simulator prints the one it takes)"],
    ['no login', { ...good, authenticate: undefined }, 'authenticate_missing', 'createVoiceProxy: authenticate is missing; pass a function of the request that returns the logged-in user ({ id, name? }) or null'],
  ];
  for (const [what, options, code, message] of cases) {
    it(`refuses ${what} with ${code}, in one line`, () => {
      const error = thrownBy(options);
      expect(error).toBeInstanceOf(VoiceProxySetupError);
      expect({ code: (error as VoiceProxySetupError).code, message: (error as Error).message }).toEqual({ code, message });
    });
  }

  it('takes good options, and then reads nothing with checkService false', async () => {
    expect(thrownBy(good)).toBeUndefined();
    await expect(createVoiceProxy(good).checked).resolves.toBeUndefined();
  });
});

describe('the start-up read', () => {
  it('resolves `checked` when the base URL reaches the service, having read it once', async () => {
    const { fetch, service } = createSimulator();
    const { proxy, lines, asked } = checkedProxy(BASE_URL, fetch);
    await expect(proxy.checked).resolves.toBeUndefined();
    expect(asked).toEqual(['http://sim.test/api/v1/voice/browser-sessions?externalSubject=voice-proxy-start-up-check']);
    expect((await connect(proxy, 'alice')).status).toBe(201);
    // Nothing wrong to say; the read taught the key's budget its quota, which it tells once.
    expect(lines).toEqual([expect.stringContaining("the voice key's quota is 100 requests a minute")]);
    await service.close();
  });

  it('tells a base URL without the prefix: `checked` rejects, one log line, every request 503 with the code', async () => {
    const { fetch, service } = createSimulator();
    const { proxy, lines, asked } = checkedProxy('http://sim.test', fetch);
    const error = await failure(proxy.checked);
    expect(error).toBeInstanceOf(VoiceProxySetupError);
    expect((error as VoiceProxySetupError).code).toBe('base_url_without_prefix');
    expect((error as Error).message).toMatch(/^voice proxy: the voice service at http:\/\/sim\.test answered .+ to GET \/v1\/voice\/browser-sessions; the base URL must end in the service's path prefix, e\.g\. http:\/\/sim\.test\/api$/);
    for (const user of ['alice', undefined]) {
      const answer = await connect(proxy, user);
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { code: string }).code).toBe('base_url_without_prefix');
    }
    expect(lines).toEqual([(error as Error).message]);
    // The read alone went out: the requests were answered here.
    expect(asked).toHaveLength(1);
    await service.close();
  });

  it('names the prefix when what answers 404 is JSON, and never prints the key', async () => {
    const notFound: Fetch = async () => Response.json({ error: 'no such route', code: 'not_found' }, { status: 404 });
    const { proxy, lines } = checkedProxy('https://voice.example.com/v2/', notFound);
    const error = (await failure(proxy.checked)) as Error;
    expect(error.message).toBe(
      "voice proxy: the voice service at https://voice.example.com/v2/ answered 404 to GET /v1/voice/browser-sessions; the base URL must end in the service's path prefix, e.g. https://voice.example.com/v2/api",
    );
    expect(lines.join('\n')).not.toContain(API_KEY);
  });

  it('rejects `checked` with service_unreachable when nothing answers, and lets requests go on', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}/api`;
    const { proxy, lines } = checkedProxy(baseUrl);
    const error = await failure(proxy.checked);
    expect((error as VoiceProxySetupError).code).toBe('service_unreachable');
    expect(lines).toEqual([`voice proxy: the voice service at ${baseUrl} did not answer the start-up read (upstream_unavailable); requests go on, /readyz tells when it answers`]);
    // Not proven wrong: a request is tried, and answered as any request the service does not answer.
    const answer = await connect(proxy, 'alice');
    expect(((await answer.json()) as { code: string }).code).toBe('upstream_unavailable');
  });
});
