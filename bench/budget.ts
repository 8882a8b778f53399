import { randomUUID } from 'node:crypto';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import { startApp, type RunningApp } from '../scripts/start-app.js';
import { startRedis, type RunningRedis } from '../scripts/start-redis.js';
import { lendWebSocket, SipClient } from '../test/simulator/support/sip-client.js';
import { startBenchSimulator } from './simulator-process.js';
import { quantile, type Row } from './stats.js';

/**
 * The key's budget under load (docs/operations.md, "The key's budget"): a simulator whose key has 1,200
 * requests a minute, and 30 agents (scripted pages: a login, a browser session registered by SIP.js, a call
 * answered, then a read of it every second, as the library reads) asking to call through the proxy, a tenth
 * of a second apart. Once with one proxy, once with two replicas on one Redis. How many calls were admitted,
 * how the reads of the calls in progress fared, how fast a refused call was refused, and how old a page's view
 * of its call grew.
 */

const AGENTS = 30;
const QUOTA_PER_MINUTE = 1200;
/** How long each admitted call is read once a second. */
const HOLD_MS = 30_000;
const STAGGER_MS = 100;

export interface BudgetFigures {
  replicas: number;
  admitted: number;
  refused: number;
  /** Refusals that were not the proxy's own `429 concurrency_limit` (should be none). */
  otherAnswers: number;
  /** A refused call's answer as the agent met it, and the proxy's own time for it (its `Server-Timing`). */
  refusalMs: { p50: number; max: number };
  refusalProxyMs: { p50: number; max: number };
  reads: number;
  /** Reads of calls in progress answered anything but 200. */
  readsRefused: number;
  /** The longest any page went without a fresh read of its call, ms. */
  maxViewAgeMs: number;
}

interface Agent {
  app: RunningApp;
  cookie: string;
  sessionId: string;
  client: SipClient;
}

async function voice(app: RunningApp, cookie: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${app.demo}/voice${path}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const timing = /proxy;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1];
  return { status: response.status, proxyMs: timing === undefined ? Number.NaN : Number(timing), json: (await response.json()) as { call?: { id: string; busy: boolean }; code?: string; session?: { id: string }; transport?: never } };
}

async function agentAt(app: RunningApp, username: string): Promise<Agent> {
  const login = await fetch(`${app.demo}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username }) });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const created = await voice(app, cookie, 'POST', '/browser-sessions', {});
  if (created.status !== 201) throw new Error(`${username}: a session was refused (${created.status} ${created.json.code})`);
  const { session, transport } = created.json as unknown as { session: { id: string }; transport: Parameters<typeof SipClient.start>[0] };
  const client = await SipClient.start(transport);
  const registered = await client.register(client.registerer(transport.registrationExpiresSeconds));
  if (registered.statusCode !== 200) throw new Error(`${username}: REGISTER answered ${registered.statusCode}`);
  return { app, cookie, sessionId: session.id, client };
}

/** One agent's call: asked for, answered when admitted, then read every second until `until`. */
async function callAndRead(agent: Agent, until: number, figures: { refusalMs: number[]; refusalProxyMs: number[]; statuses: number[]; viewAges: number[]; admitted: string[]; other: number }) {
  const invited = agent.client.nextInvitation();
  const started = performance.now();
  const answer = await voice(agent.app, agent.cookie, 'POST', '/browser-calls', { sessionId: agent.sessionId, from: '+12025550199', to: '+12025550100' }, { 'idempotency-key': randomUUID() });
  const took = performance.now() - started;
  if (answer.status === 429 && answer.json.code === 'concurrency_limit') {
    figures.refusalMs.push(took);
    figures.refusalProxyMs.push(answer.proxyMs);
    return;
  }
  if (answer.status !== 202 || !answer.json.call) return void (figures.other += 1);
  const callId = answer.json.call.id;
  figures.admitted.push(callId);
  await (await invited).accept();
  let lastFresh = performance.now();
  while (Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const read = await voice(agent.app, agent.cookie, 'GET', `/browser-calls/${callId}`);
    figures.statuses.push(read.status);
    if (read.status === 200) {
      figures.viewAges.push(performance.now() - lastFresh);
      lastFresh = performance.now();
    }
  }
  await voice(agent.app, agent.cookie, 'POST', `/browser-calls/${callId}/hangup`, {});
}

async function run(replicas: number): Promise<BudgetFigures> {
  const simulator = await startBenchSimulator({ quotaPerMinute: QUOTA_PER_MINUTE });
  let redis: RunningRedis | undefined;
  const apps: RunningApp[] = [];
  const restoreWebSocket = lendWebSocket();
  const agents: Agent[] = [];
  try {
    if (replicas > 1) redis = await startRedis();
    const env = {
      VOICE_BASE_URL: `${simulator.url}/api`,
      VOICE_API_KEY: DEFAULT_SIM_API_KEY,
      SESSION_SECRET: 'bench-budget-secret-of-at-least-32-characters',
      ...(redis ? { REDIS_URL: redis.url } : {}),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    };
    for (let i = 0; i < replicas; i++) apps.push(await startApp(env));
    for (let i = 0; i < AGENTS; i++) agents.push(await agentAt(apps[i % replicas]!, `bench-budget-${replicas}-${i}`));

    const figures = { refusalMs: [] as number[], refusalProxyMs: [] as number[], statuses: [] as number[], viewAges: [] as number[], admitted: [] as string[], other: 0 };
    const until = Date.now() + AGENTS * STAGGER_MS + HOLD_MS;
    await Promise.all(agents.map(async (agent, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * STAGGER_MS));
      await callAndRead(agent, until, figures);
    }));
    const spread = (samples: number[]) => ({ p50: Math.round(quantile(samples, 0.5) * 10) / 10, max: Math.round(Math.max(0, ...samples) * 10) / 10 });
    return {
      replicas,
      admitted: figures.admitted.length,
      refused: figures.refusalMs.length,
      otherAnswers: figures.other,
      refusalMs: spread(figures.refusalMs),
      refusalProxyMs: spread(figures.refusalProxyMs),
      reads: figures.statuses.length,
      readsRefused: figures.statuses.filter((status) => status !== 200).length,
      maxViewAgeMs: Math.round(Math.max(0, ...figures.viewAges)),
    };
  } finally {
    await Promise.all(agents.map((agent) => agent.client.stop().catch(() => undefined)));
    restoreWebSocket();
    await Promise.all(apps.map((app) => app.stop()));
    await simulator.stop();
    await redis?.stop();
  }
}

const describe = (f: BudgetFigures): Row[] => {
  const where = f.replicas === 1 ? 'one proxy' : `${f.replicas} replicas on Redis`;
  return [
    {
      figure: `budget, ${where}: ${AGENTS} agents ask to call on a key of ${QUOTA_PER_MINUTE} a minute`,
      value: `${f.admitted} admitted, ${f.refused} refused by the proxy${f.otherAnswers ? `, ${f.otherAnswers} other answers` : ''}`,
      target: 'as many as the quota serves, the rest refused',
      met: f.otherAnswers === 0 && f.admitted > 0 && f.admitted + f.refused === AGENTS,
    },
    { figure: `budget, ${where}: reads of calls in progress refused or 429`, value: `${f.readsRefused} of ${f.reads}`, target: '0', met: f.readsRefused === 0 },
    {
      figure: `budget, ${where}: a refused call, at the proxy (Server-Timing) / as the agent met it`,
      value: `${f.refusalProxyMs.p50} / ${f.refusalMs.p50} ms median, ${f.refusalProxyMs.max} / ${f.refusalMs.max} ms slowest`,
      target: '< 10 ms each at the proxy',
      met: f.refused > 0 && f.refusalProxyMs.max < 10,
    },
    { figure: `budget, ${where}: oldest view a page had of its call`, value: `${(f.maxViewAgeMs / 1000).toFixed(2)} s`, target: '≤ 2 s', met: f.maxViewAgeMs <= 2000 },
  ];
};

export async function measureBudget(): Promise<{ rows: Row[]; figures: BudgetFigures[] }> {
  const figures = [await run(1), await run(2)];
  return { rows: figures.flatMap(describe), figures };
}
