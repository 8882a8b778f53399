import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createDemoApp } from './app.js';
import { ConfigError, parseConfig } from './config.js';
import { createRedisRateStore } from './redis-rate-store.js';
import { startSimulator, type RunningSimulator } from './simulator/server.js';

/**
 * `npm start`: the proxy serving the demo on PORT, with the embedded simulator on SIM_PORT unless
 * VOICE_BASE_URL points at a real service. Ctrl-C stops everything.
 */

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  // First, so an unreachable Redis stops start-up before anything listens.
  const store = config.redisUrl ? await createRedisRateStore({ url: config.redisUrl }) : undefined;
  let simulator: RunningSimulator | undefined;
  let voice = config.voice;
  if (!voice) {
    simulator = await startSimulator({ apiKey: config.simApiKey, port: config.simPort, quota: config.simQuota, ...config.simTimings });
    voice = { baseUrl: simulator.baseUrl, apiKey: config.simApiKey };
    console.log(`simulator on ${simulator.url} (REST ${simulator.baseUrl}/v1/voice, SIP ${simulator.url.replace(/^http/, 'ws')}/sip)`);
    console.log(`simulator API key: ${config.simApiKey}${process.env.SIM_API_KEY ? '' : ' (the default; set SIM_API_KEY to change it)'}`);
  }
  const app = createDemoApp({
    voice,
    sessionSecret: config.sessionSecret,
    demoRoot: `${root}dist/demo`,
    libRoot: `${root}dist/lib`,
    rateLimit: { ...config.userRate, ...(store ? { store } : {}) },
  });
  const server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  console.log(`demo on http://127.0.0.1:${port}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.closeAllConnections();
    await Promise.all([new Promise((resolve) => server.close(resolve)), simulator?.close(), store?.close?.()]);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(`start-up: port ${(error as { port?: number }).port ?? ''} is in use; set PORT or SIM_PORT to a free one`);
  } else console.error('start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
