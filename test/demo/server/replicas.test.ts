import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appEnvironment, startApp, type RunningApp } from '../../../scripts/start-app.js';
import { freePort, useRedis } from '../../server-proxy/support/redis-server.js';

/**
 * Two proxy processes started as `npm start` starts them, behind an imagined load
 * balancer, with REDIS_URL pointing at one real redis-server: a user's requests count together.
 */

const { redis, onStop } = useRedis();
const apps: RunningApp[] = [];

/**
 * What the shell running the tests may export (a user of `npm run simulator` has SIM_API_KEY, SIM_PORT): each
 * would break these apps if it reached them, so none may.
 */
const CALLERS_SHELL = {
  PORT: '1',
  SIM_PORT: '1',
  SIM_API_KEY: 'vsk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  VOICE_BASE_URL: 'http://127.0.0.1:9/api',
  VOICE_USER_RATE_PER_HOUR: '1',
};

afterAll(() => {
  vi.unstubAllEnvs();
});

beforeAll(async () => {
  for (const [name, value] of Object.entries(CALLERS_SHELL)) vi.stubEnv(name, value);
  const env = { REDIS_URL: redis().url, VOICE_USER_RATE_PER_MINUTE: '3' };
  apps.push(...(await Promise.all([startApp(env), startApp(env)])));
  onStop(() => Promise.all(apps.map((app) => app.stop())));
}, 300_000);

async function login(app: RunningApp, username: string): Promise<string> {
  const response = await fetch(`${app.demo}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username }) });
  expect(response.status).toBe(200);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

describe('REDIS_URL', () => {
  it('makes two proxy processes share one per-user limit', async () => {
    const [a, b] = apps;
    if (!a || !b) throw new Error('both apps must have started');
    const cookies = new Map([
      [a, await login(a, 'replica-user')],
      [b, await login(b, 'replica-user')],
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const app = i % 2 === 0 ? a : b;
      const response = await fetch(`${app.demo}/voice/browser-sessions`, { headers: { cookie: cookies.get(app) ?? '' } });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      await response.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);

    const other = await fetch(`${b.demo}/voice/browser-sessions`, { headers: { cookie: await login(b, 'another-user') } });
    expect(other.status).toBe(200);
  });
});

describe('an unreachable REDIS_URL', () => {
  it('stops start-up with one line naming where, before anything listens', async () => {
    const port = await freePort();
    // Waited for to its exit, however long a busy machine takes to compile the server first (the test's own limit
    // is for a start that hangs).
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/server/main.ts'], {
      env: appEnvironment({ PORT: '0', SIM_PORT: '0', REDIS_URL: `redis://127.0.0.1:${port}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(`start-up failed: cannot reach Redis at 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});
