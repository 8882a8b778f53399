import { freePort, startRedis } from '../scripts/start-redis.js';
import { createVoiceProxy } from '../server-proxy/setup/proxy.js';
import { createRedisRateStore } from '../server-proxy/redis/redis-rate-store.js';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import { ms, quantile, type Row } from './stats.js';

/**
 * How soon the proxy says "no" when there is nobody to ask: a service that refuses connections answers the
 * page `503 upstream_unavailable`, a Redis that cannot be reached stops the start-up, and a command to a Redis
 * that went away fails, each without waiting for a timer. The unit tests prove that nothing waits for a timer
 * (on a clock that never moves, or by which error came); the time it takes on this machine is measured here.
 */

export interface FailFastFigures {
  refusedUpstream: { p50Ms: number; maxMs: number };
  redisStart: { p50Ms: number; maxMs: number };
  redisGone: { p50Ms: number; maxMs: number };
}

/** Each target as the unit tests held it before the figures moved here. */
const TARGETS = { refusedUpstream: 2000, redisStart: 3000, redisGone: 1000 };

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** A proxy in front of a port nobody listens on: one page read and one mutation, timed together. */
async function refusedUpstream(): Promise<number> {
  const port = await freePort();
  const proxy = createVoiceProxy({
    baseUrl: `http://127.0.0.1:${port}/api`,
    apiKey: DEFAULT_SIM_API_KEY,
    authenticate: () => ({ id: 'bench', name: 'Bench' }),
    rateLimit: false,
    log: () => undefined,
    logger: false,
    checkService: false,
  });
  return timed(async () => {
    for (const method of ['GET', 'POST']) {
      const response = await proxy(new Request('http://app.test/voice/browser-sessions', { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) }));
      if (response.status !== 503) throw new Error(`bench: a refused upstream answered ${response.status}`);
    }
  });
}

async function redisStart(): Promise<number> {
  const port = await freePort();
  return timed(async () => {
    const failure = await createRedisRateStore({ url: `redis://127.0.0.1:${port}` }).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!(failure instanceof Error)) throw new Error('bench: a rate store started without Redis');
  });
}

async function redisGone(): Promise<number> {
  const redis = await startRedis();
  const store = await createRedisRateStore({ url: redis.url, prefix: 'bench-gone:' });
  try {
    await store.hit('bench', 60_000);
    await redis.stop();
    return await timed(() => store.hit('bench', 60_000).then(() => Promise.reject(new Error('bench: a hit on a stopped Redis answered')), () => undefined));
  } finally {
    await store.close?.();
  }
}

function row(figure: string, samples: number[], targetMs: number): Row {
  const max = Math.max(...samples);
  return { figure, value: `p50 ${ms(quantile(samples, 0.5))}, max ${ms(max)}`, target: `max < ${ms(targetMs)}`, met: max < targetMs };
}

/** `runs` of each, but at most five of the "gone" runs, as each starts and stops a Redis of its own. */
export async function measureFailFast(runs: number): Promise<{ rows: Row[]; figures: FailFastFigures }> {
  const samples = { refusedUpstream: [] as number[], redisStart: [] as number[], redisGone: [] as number[] };
  for (let i = 0; i < runs; i++) {
    samples.refusedUpstream.push(await refusedUpstream());
    samples.redisStart.push(await redisStart());
    if (i < Math.min(runs, 5)) samples.redisGone.push(await redisGone());
  }
  const figure = (values: number[]) => ({ p50Ms: quantile(values, 0.5), maxMs: Math.max(...values) });
  return {
    rows: [
      row('proxy: refused upstream to 503 (read + mutation)', samples.refusedUpstream, TARGETS.refusedUpstream),
      row('proxy: start-up refused without Redis', samples.redisStart, TARGETS.redisStart),
      row('proxy: rate-store hit on a Redis gone', samples.redisGone, TARGETS.redisGone),
    ],
    figures: { refusedUpstream: figure(samples.refusedUpstream), redisStart: figure(samples.redisStart), redisGone: figure(samples.redisGone) },
  };
}
