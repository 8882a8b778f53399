import { describe, expect, it } from 'vitest';
import { startApp } from '../../../scripts/start-app.js';
import { createSimulatorControl } from '../../../simulator/http/control-client.js';
import { useRedis } from '../../server-proxy/support/redis-server.js';

/**
 * SIGTERM drains the app as `npm start` runs it: no new connection is taken, a request
 * in flight gets its answer, Redis is closed, and the process exits 0.
 */

const { redis } = useRedis();

describe('SIGTERM', () => {
  it('lets a request in flight finish, takes no new connection, and exits 0', async () => {
    const app = await startApp({ REDIS_URL: redis().url });
    try {
      const login = await fetch(`${app.demo}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'drain-user' }) });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      // The service takes 1.5 s to answer the next read: it is in flight when the signal comes.
      await createSimulatorControl(app.sim).fault({ method: 'GET', path: '/api/v1/voice/browser-sessions', fault: 'delay', delayMs: 1500 });
      const inFlight = fetch(`${app.demo}/voice/browser-sessions`, { headers: { cookie } });
      await new Promise((resolve) => setTimeout(resolve, 300));

      process.kill(app.pid, 'SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await fetch(`${app.demo}/healthz`).then(
        () => 'answered',
        (error: unknown) => String((error as { cause?: { code?: string } }).cause?.code ?? error),
      );
      expect(refused).toBe('ECONNREFUSED');

      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ session: null, call: null });
      expect(await app.exited).toBe(0);
    } finally {
      await app.stop();
    }
  }, 60_000);
});
