import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../contract/environment.js';
import { appEnvironment } from '../../../scripts/start-app.js';
import { checkService } from '../../../demo/server/service-check.js';
import { API_KEY, BASE_URL, createSimulator } from '../../server-proxy/support/harness.js';
import { freePort } from '../../server-proxy/support/redis-server.js';

/** `npm start` with VOICE_BASE_URL proves the service answers and takes the key before it listens. */

const failure = (promise: Promise<void>) => promise.then(() => undefined, (error: unknown) => error);

describe('checkService', () => {
  it('resolves when the service answers and accepts the key', async () => {
    const { fetch, service } = createSimulator();
    await expect(checkService({ baseUrl: BASE_URL, apiKey: API_KEY, fetch })).resolves.toBeUndefined();
    await service.close();
  });

  it('says in one line that the service did not answer, naming the URL', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}/api`;
    const error = await failure(checkService({ baseUrl, apiKey: API_KEY }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`start-up: the voice service at VOICE_BASE_URL (${baseUrl}) did not answer (upstream_unavailable); check the URL and that it is reachable from here`);
  });

  it('says the key was refused, with the service code, and never prints the key', async () => {
    const { fetch, service } = createSimulator();
    const error = await failure(checkService({ baseUrl: BASE_URL, apiKey: 'vk_test_NotAKeyTheServiceKnows0000000000', fetch }));
    expect((error as Error).message).toMatch(/^start-up: the voice service at VOICE_BASE_URL \(http:\/\/sim\.test\/api\) refused VOICE_API_KEY \(401 [a-z_]+\); fix the key or the account$/);
    expect((error as Error).message).not.toContain('NotAKey');
    await service.close();
  });

  it('says the URL lacks the API prefix when what answers there is not the API', async () => {
    const { fetch, service } = createSimulator();
    const error = await failure(checkService({ baseUrl: 'http://sim.test', apiKey: API_KEY, fetch }));
    expect((error as Error).message).toBe(
      'start-up: the voice service at VOICE_BASE_URL (http://sim.test) answered something that is not its API (not JSON at /browser-sessions); VOICE_BASE_URL must include /api',
    );
    await service.close();
  });

  it('says so when a JSON server there has no browser voice routes', async () => {
    const notFound: typeof fetch = async () => new Response('{"error":"Not Found","code":"not_found"}', { status: 404, headers: { 'content-type': 'application/json' } });
    const error = await failure(checkService({ baseUrl: 'http://elsewhere.test', apiKey: API_KEY, fetch: notFound }));
    expect((error as Error).message).toMatch(/has no browser voice API \(404 on \/browser-sessions\); VOICE_BASE_URL must include \/api$/);
  });
});

describe('npm start with VOICE_BASE_URL', () => {
  it('stops before it listens when the service does not answer, with that one line and exit code 1', async () => {
    const baseUrl = `http://127.0.0.1:${await freePort()}/api`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/server/main.ts'], {
      env: appEnvironment({ PORT: '0', VOICE_BASE_URL: baseUrl, VOICE_API_KEY: API_KEY, SESSION_SECRET: 's'.repeat(32) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stdout).not.toContain('demo on');
    expect(stderr.trim()).toBe(`start-up: the voice service at VOICE_BASE_URL (${baseUrl}) did not answer (upstream_unavailable); check the URL and that it is reachable from here`);
  });
});
