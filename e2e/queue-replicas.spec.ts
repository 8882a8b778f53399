import { randomBytes } from 'node:crypto';
import type { Browser, Page } from '@playwright/test';
import { startApp, type RunningApp } from '../scripts/start-app.js';
import { startRedis, type RunningRedis } from '../scripts/start-redis.js';
import { createSimulatorControl } from '../simulator/http/control-client.js';
import { expect, logInAndConnect, test } from './fixtures.js';

/**
 * Support desks behind two proxy replicas on one real Redis (docs/desk.md: "with REDIS_URL an event that reached
 * one replica reaches agents on every replica"), in real Chromium. Replica A embeds the simulator, made the
 * queues and receives their webhooks; replica B speaks to A's simulator with the same key and queue secret
 * (`QUEUE_SECRET`), so it takes A's queues. An agent logged in at each: a caller that arrives shows on both
 * panels, B's agent answers it (A's panel drops the caller, claimed at B), and the caller's hangup ends it.
 */

const SIM_API_KEY = 'vsk_E2eQueueReplicasKey0000000000000';
const LINE = '+18005550100';

let redis: RunningRedis;
let a: RunningApp;
let b: RunningApp;

test.beforeAll(async () => {
  // Past the two apps' own start-up limits (a loaded machine compiles them slowly), so a limit of theirs is the error a slow start reports.
  test.setTimeout(240_000);
  redis = await startRedis();
  const shared = { REDIS_URL: redis.url, QUEUE_SECRET: randomBytes(32).toString('base64url'), SESSION_SECRET: randomBytes(32).toString('base64url') };
  a = await startApp({ ...shared, SIM_API_KEY, SIM_QUOTA_PER_MINUTE: '100000', SIM_QUOTA_PER_HOUR: '1000000' });
  b = await startApp({ ...shared, VOICE_BASE_URL: `${a.sim}/api`, VOICE_API_KEY: SIM_API_KEY });
});
test.afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await redis?.stop();
});

/** An agent at `app`: a browser context of its own, logged in as `username` and connected. */
async function agentAt(browser: Browser, app: RunningApp, username: string): Promise<Page> {
  const context = await browser.newContext({ permissions: ['microphone'] });
  const page = await context.newPage();
  await logInAndConnect(page, username, `${app.demo}/`);
  return page;
}

const waiting = (page: Page) => page.getByRole('region', { name: 'Queues' }).locator('[data-testid="queue"][data-queue-name="Support"]').getByTestId('caller-number');

test('two replicas on one Redis: a caller shows on both panels, an agent at either takes it, and the other panel drops it', async ({ browser }) => {
  test.setTimeout(90_000);
  const atA = await agentAt(browser, a, 'e2e-replica-a');
  const atB = await agentAt(browser, b, 'e2e-replica-b');
  try {
    // Both replicas list the same two queues: B took the ones A made.
    const listed = async (page: Page, app: RunningApp) => {
      const response = await page.request.get(`${app.demo}/voice/queues`);
      expect(response.status()).toBe(200);
      return ((await response.json()) as { queues: Array<{ id: string; name: string }> }).queues;
    };
    const queuesAtA = await listed(atA, a);
    expect(queuesAtA.map((queue) => queue.name).sort()).toEqual(['Sales', 'Support']);
    expect(await listed(atB, b)).toEqual(queuesAtA);
    const support = queuesAtA.find((queue) => queue.name === 'Support')?.id ?? '';

    // The webhook goes to A; B's agent sees the caller through Redis.
    const simulator = createSimulatorControl(a.sim);
    const caller = await simulator.inbound({ queueId: support, from: '+14155550151', to: LINE });
    await expect(waiting(atA)).toHaveText([caller.from]);
    await expect(waiting(atB)).toHaveText([caller.from]);

    // B's agent answers: the call rings B's page, and A's panel drops the caller (claimed at B, told through Redis).
    await atB.getByRole('button', { name: 'Answer next in Support' }).click();
    await expect(atB.getByTestId('call-state')).toHaveText('connected');
    await expect(atB.getByTestId('call-id')).toHaveText(caller.id);
    await expect(waiting(atA)).toHaveCount(0);
    await expect(waiting(atB)).toHaveCount(0);
    expect((await simulator.inboundCall(caller.id)).call.state).toBe('established');

    // A second caller, answered at A this time, while the first talks at B.
    const second = await simulator.inbound({ queueId: support, from: '+14155550152', to: LINE });
    await expect(waiting(atB)).toHaveText([second.from]);
    await atA.getByRole('button', { name: 'Answer next in Support' }).click();
    await expect(atA.getByTestId('call-id')).toHaveText(second.id);
    await expect(atA.getByTestId('call-state')).toHaveText('connected');
    await expect(waiting(atB)).toHaveCount(0);

    // The callers hang up: each page sees its call end.
    await simulator.callerHangup(caller.id);
    await simulator.callerHangup(second.id);
    await expect(atB.getByTestId('busy')).toHaveText('false');
    await expect(atA.getByTestId('busy')).toHaveText('false');
  } finally {
    await atA.context().close();
    await atB.context().close();
  }
});
