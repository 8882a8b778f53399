import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { createClient } from 'redis';
import { startApp, type RunningApp } from '../scripts/start-app.js';
import { startRedis, type RunningRedis } from '../scripts/start-redis.js';
import { createSimulatorControl, type InboundCallRecord, type SimulatorControl } from '../simulator/http/control-client.js';
import { expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * Offer mode across two proxy replicas on one real redis-server, one of them killed mid-offer
 * (docs/desk.md, "Offer mode"), in real browsers. Replica A embeds the simulator, made the queues and
 * receives their webhooks; replica B speaks to A's simulator with the same key and queue secret, and holds the
 * router's lease (`offer-router` on the bus). An agent at each, both available, Ada at A idle the longer: the
 * caller rings Ada's page, dequeued by B, and B is killed (SIGKILL) while it rings. Nothing is left stuck: the
 * offer goes unanswered, the caller is back at the head, B's lease lapses, A takes it and offers the caller to
 * Ada again, who answers; the service's record shows one established bridge for that caller. A second caller,
 * afterwards, is offered by A alone. B's agent's page, whose replica is gone, is closed with it.
 */

const SIM_API_KEY = 'vsk_E2eOfferReplicasKey0000000000000';
const LINE = '+18005550100';
/**
 * The service's ring time for an offered agent: short, so the offer B made goes unanswered soon after B dies, yet
 * long enough for room between the ringing card showing and B's kill.
 */
const SERVICE_RING_MS = '8000';
/** The router's lease on the bus (the Redis queue events' key prefix, the offer runner's lease name). */
const ROUTER_LEASE = 'voice-browser:queue-event:lease:offer-router';
/**
 * Half the router's lease (the offer runner's: 9 s with its 4 s checks), and a margin: a holder routes only that long
 * after it last took its lease, so once the lease has been held from A this long, A routes no more.
 */
const HOLDER_STOPS_MS = 5000;
/** Room for a lease to lapse (9 s), the next holder's check (4 s) and the offer to ring. */
const TAKEN_OVER_MS = 40_000;

type Redis = ReturnType<typeof createClient>;

/** The two replicas, their Redis and the test's own client of it (which reads and holds the router's lease). */
interface Replicas {
  redis: RunningRedis;
  bus: Redis;
  a: RunningApp;
  b: RunningApp;
  /** A's holder id on the router's lease: A took it as it started, alone. */
  holderA: string;
  /** When the test last took the router's lease. */
  heldAt: number;
  killed: boolean;
}

/**
 * Starts Redis, A (the simulator in it) and B; every variable they rely on is set here. The test holds the router's
 * lease from A's start on, so A's router stops and B, starting, does not take it before the test hands it over.
 */
async function startReplicas(started: Partial<Replicas>): Promise<Replicas> {
  const redis = (started.redis = await startRedis());
  const bus = (started.bus = createClient({ url: redis.url }));
  await bus.connect();
  const shared = { REDIS_URL: redis.url, QUEUE_SECRET: randomBytes(32).toString('base64url'), SESSION_SECRET: randomBytes(32).toString('base64url') };
  const a = (started.a = await startApp({ ...shared, SIM_API_KEY, SIM_QUOTA_PER_MINUTE: '100000', SIM_QUOTA_PER_HOUR: '1000000', SIM_QUEUE_ANSWER_TIMEOUT_MS: SERVICE_RING_MS }));
  await expect.poll(() => bus.get(ROUTER_LEASE), { timeout: 15_000 }).not.toBeNull();
  started.holderA = (await bus.get(ROUTER_LEASE)) ?? '';
  await holdRouterLease(started as Replicas);
  started.b = await startApp({ ...shared, VOICE_BASE_URL: `${a.sim}/api`, VOICE_API_KEY: SIM_API_KEY });
  started.killed = false;
  return started as Replicas;
}

/** Stops what {@link startReplicas} started, B awaited rather than stopped once the test killed it. */
async function stopReplicas({ redis, bus, a, b, killed }: Partial<Replicas>): Promise<void> {
  if (killed) await b?.exited;
  else await b?.stop();
  await a?.stop();
  await bus?.quit().catch(() => undefined);
  await redis?.stop();
}

async function holdRouterLease(replicas: Replicas): Promise<void> {
  await replicas.bus.set(ROUTER_LEASE, 'e2e-test', { expiration: { type: 'PX', value: 120_000 } });
  replicas.heldAt = Date.now();
}

interface Agent {
  context: BrowserContext;
  page: Page;
  app: RunningApp;
}

/** An agent at `app`: a browser context of its own, logged in as `username` and connected. */
async function agentAt(browser: Browser, app: RunningApp, username: string): Promise<Agent> {
  const context = await browser.newContext({ permissions: ['microphone'] });
  const page = await context.newPage();
  await logInAndConnect(page, username, `${app.demo}/`);
  return { context, page, app };
}

/** The agent says Available with the switch; resolves once the server's answer shows. */
async function goAvailable(agent: Agent): Promise<void> {
  const toggle = agent.page.getByRole('switch', { name: 'Available for offered callers' });
  await expect(agent.page.getByTestId('availability')).toHaveText('away');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  await expect(agent.page.getByTestId('availability')).toHaveText('available');
}

/**
 * Hands the router's lease, which the test holds, to B: once A can route no more, the test lets the lease go and
 * at once nudges B's router (a `PUT /availability` at B checks at once). A's own check may come between the two
 * (the more likely, the slower the machine): then the test takes the lease back and tries again, as often as it
 * takes. Only a B that never takes the lease keeps it trying, until the spec's timeout. Resolves with B's holder id.
 */
async function handRouterTo(replicas: Replicas, atB: Agent): Promise<string> {
  const { bus, holderA } = replicas;
  for (;;) {
    const wait = replicas.heldAt + HOLDER_STOPS_MS - Date.now();
    if (wait > 0) await atB.page.waitForTimeout(wait);
    await bus.del(ROUTER_LEASE);
    const said = await atB.context.request.put(`${atB.app.demo}/voice/availability`, { data: { availability: 'available' } });
    expect(said.status()).toBe(200);
    await expect.poll(() => bus.get(ROUTER_LEASE)).not.toBeNull();
    const holder = (await bus.get(ROUTER_LEASE)) ?? '';
    if (holder !== holderA) return holder;
    await holdRouterLease(replicas);
  }
}

const offerCard = (agent: Agent) => agent.page.getByTestId('offer-card');

/** The service's record of the caller: its state, the agent it rings or talks with, and its states so far. */
async function serviceRecord(simulator: SimulatorControl, caller: InboundCallRecord) {
  const { call, facts } = await simulator.inboundCall(caller.id);
  return { state: call.state, agentId: call.agentId ?? null, history: facts.history.map(({ state }) => state).join(' '), facts };
}

/** The agent's page holds `caller`, connected. */
async function talksWith(agent: Agent, caller: InboundCallRecord): Promise<void> {
  await expect(offerCard(agent)).toHaveCount(0);
  await expect(agent.page.getByTestId('call-state')).toHaveText('connected');
  await expect(agent.page.getByTestId('call-id')).toHaveText(caller.id);
}

test('two replicas on one redis-server: the router replica killed mid-offer leaves nothing stuck, and the survivor offers the callers', async ({ browser }) => {
  test.setTimeout(150_000);
  const started: Partial<Replicas> = {};
  const callers: InboundCallRecord[] = [];
  const agents: Agent[] = [];
  let simulator: SimulatorControl | undefined;
  try {
    const replicas = await startReplicas(started);
    const { a, b, bus, holderA } = replicas;
    const service = (simulator = createSimulatorControl(a.sim));
    const ada = await agentAt(browser, a, 'e2e-offer-replica-ada');
    agents.push(ada);
    const bo = await agentAt(browser, b, 'e2e-offer-replica-bo');
    agents.push(bo);
    const { queues } = (await (await ada.page.request.get(`${a.demo}/voice/queues`)).json()) as { queues: Array<{ id: string; name: string }> };
    const sales = queues.find((queue) => queue.name === 'Sales')?.id ?? '';
    expect(sales).not.toBe('');
    // Ada says available first, so she is the longer idle; then Bo, at B.
    await goAvailable(ada);
    await goAvailable(bo);
    const holderB = await handRouterTo(replicas, bo);

    // The caller arrives (its webhook reaches A, and B through Redis): B's router dequeues it to Ada, whose page rings.
    const first = await service.inbound({ queueId: sales, from: '+14155550181', to: LINE });
    callers.push(first);
    await expect(offerCard(ada)).toHaveAttribute('data-call-id', first.id, { timeout: TAKEN_OVER_MS });
    const ringing = await serviceRecord(service, first);
    expect(ringing.state).toBe('dequeuing');
    const adaId = ringing.agentId ?? '';
    expect(adaId).not.toBe('');
    expect(await bus.get(ROUTER_LEASE)).toBe(holderB);

    // B dies while Ada's page rings; her agent's page at B goes with it.
    process.kill(b.pid, 'SIGKILL');
    replicas.killed = true;
    expect(await b.exited).toBeNull();
    await bo.context.close();

    // The offer goes unanswered (nobody routes it on), and the caller is back at the head; B's lease lapses and A
    // takes it, and offers the caller to Ada again: she answers.
    await expect.poll(async () => (await serviceRecord(service, first)).history, { timeout: TAKEN_OVER_MS }).toMatch(/^queued dequeuing queued/);
    await expect.poll(() => bus.get(ROUTER_LEASE), { timeout: TAKEN_OVER_MS }).toBe(holderA);
    // (An offer of A's that a slow engine let ring out too would be made again: Accept takes whichever rings.)
    await expect.poll(async () => (await serviceRecord(service, first)).history, { timeout: TAKEN_OVER_MS }).toMatch(/^queued dequeuing queued( dequeuing queued)* dequeuing$/);
    await expect(offerCard(ada)).toHaveAttribute('data-call-id', first.id, { timeout: TAKEN_OVER_MS });
    await offerCard(ada).getByRole('button', { name: 'Accept' }).click();
    await talksWith(ada, first);
    const answered = await serviceRecord(service, first);
    expect(answered.state).toBe('established');
    expect(answered.agentId).toBe(adaId);
    expect(answered.history).toMatch(/^queued dequeuing queued( dequeuing queued)* dequeuing established$/);
    expect(answered.facts.browserFinalStatus).toBe(200);

    // Ada hangs up; a second caller arrives, and A, the router now, offers it to her after her wrap-up.
    await hangUp(ada.page);
    const second = await service.inbound({ queueId: sales, from: '+14155550182', to: LINE });
    callers.push(second);
    await expect(offerCard(ada)).toHaveAttribute('data-call-id', second.id, { timeout: TAKEN_OVER_MS });
    expect(await bus.get(ROUTER_LEASE)).toBe(holderA);
    await offerCard(ada).getByRole('button', { name: 'Accept' }).click();
    await talksWith(ada, second);

    // Each caller answered exactly once, by Ada: one established bridge each in the service's record.
    const firstDone = await serviceRecord(service, first);
    expect(firstDone.history.split(' ').filter((state) => state === 'established')).toHaveLength(1);
    expect(firstDone.history).toMatch(/^queued dequeuing queued( dequeuing queued)* dequeuing established finished$/);
    const secondDone = await serviceRecord(service, second);
    expect(secondDone.state).toBe('established');
    expect(secondDone.agentId).toBe(adaId);
    expect(secondDone.history.split(' ').filter((state) => state === 'established')).toHaveLength(1);
    expect(secondDone.history).toMatch(/^queued( dequeuing queued)* dequeuing established$/);
    await hangUp(ada.page);
  } finally {
    for (const caller of callers) await simulator?.callerHangup(caller.id).catch(() => undefined);
    for (const agent of agents) await agent.context.close().catch(() => undefined);
    await stopReplicas(started);
  }
});
