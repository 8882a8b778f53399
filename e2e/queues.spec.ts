import type { Browser, BrowserContext, Page } from '@playwright/test';
import { SIGNATURE_HEADER, serializeEvent, signBody } from '../contract/queue-webhook.js';
import type { InboundCallRecord } from '../simulator/http/control-client.js';
import { axeViolations, expect, SIM_API_KEY, hangUp, logInAndConnect, pageAudioStats, recordPeerConnections, reloadConfirmed, screenshot, test, type Simulator } from './fixtures.js';

/**
 * Support desks (docs/desk.md), in real Chromium against the demo server and
 * its simulator: callers arrive through the control API (`/__sim/inbound`), every agent's queue panel lists them
 * live, Answer next claims the head caller and the call rings that agent's page, where it runs on the call card
 * like a browser call (audio both ways, DTMF, hang-up). A caller who hangs up while queued leaves every panel; an
 * agent whose page never answers puts the caller back at the head for the next agent; a reload mid-call shows the
 * caller for cleanup; a webhook not signed with the queues' secret is refused and shows nobody.
 */

/** The number the callers dialled (the desk's line). */
const LINE = '+18005550100';

/**
 * Long enough for the simulator's wait for an agent's answer (the real service's, as the app fixture sets
 * SIM_QUEUE_ANSWER_TIMEOUT_MS) and the reads around it, on a loaded machine.
 */
const REQUEUE_MS = 45_000;

/** An agent: a browser context of its own (its own login cookie and tabs), logged in and connected. */
interface Agent {
  context: BrowserContext;
  page: Page;
}

/**
 * Opens an agent's page as `username`, `prepare`d before it loads (a route set there holds from the first
 * socket), then logs in and connects.
 */
async function openAgent(browser: Browser, username: string, prepare?: (page: Page) => Promise<void>): Promise<Agent> {
  const context = await browser.newContext({ baseURL: process.env.E2E_BASE_URL, permissions: ['microphone'] });
  await context.addInitScript(recordPeerConnections);
  const page = await context.newPage();
  await prepare?.(page);
  await logInAndConnect(page, username);
  return { context, page };
}

/** The queue ids the demo server made, by name, as the logged-in page lists them. */
async function queueIds(page: Page): Promise<Record<string, string>> {
  const response = await page.request.get('/voice/queues');
  expect(response.status()).toBe(200);
  const { queues } = (await response.json()) as { queues: Array<{ id: string; name: string }> };
  expect(queues.map((queue) => queue.name).sort()).toEqual(['Sales', 'Support']);
  return Object.fromEntries(queues.map((queue) => [queue.name, queue.id]));
}

/**
 * Every caller still waiting at the simulator hangs up (an earlier run's leftovers), so each test starts with
 * empty queues. The simulator lists its key's calls in progress; the control API acts the callers.
 */
async function emptyTheQueues(simulator: Simulator): Promise<void> {
  const response = await fetch(`${simulator.url}/api/v1/voice/calls?status=active`, { headers: { 'x-api-key': SIM_API_KEY } });
  expect(response.status).toBe(200);
  const { calls } = (await response.json()) as { calls: Array<{ id: string; direction?: string; state: string }> };
  for (const call of calls) if (call.direction === 'inbound') await simulator.callerHangup(call.id);
}

const panel = (page: Page) => page.getByRole('region', { name: 'Queues' });
const queueIn = (page: Page, name: string) => panel(page).locator(`[data-testid="queue"][data-queue-name="${name}"]`);
/** The numbers of the callers a page lists as waiting in queue `name`, head first. */
const waiting = (page: Page, name: string) => queueIn(page, name).getByTestId('caller-number');
const answerNext = (page: Page, name: string) => page.getByRole('button', { name: `Answer next in ${name}` });

/** Every page lists exactly `numbers` waiting in queue `name`, in that order. */
async function allList(pages: readonly Page[], name: string, numbers: readonly string[]): Promise<void> {
  for (const page of pages) {
    if (numbers.length === 0) {
      await expect(waiting(page, name)).toHaveCount(0);
      await expect(queueIn(page, name).getByTestId('queue-empty')).toHaveText('Nobody waiting');
    } else {
      await expect(waiting(page, name)).toHaveText([...numbers]);
    }
  }
}

/** What the simulator holds of an inbound call: its state, and the facts of its last dequeue's leg. */
const inbound = (simulator: Simulator, callId: string) => simulator.inboundCall(callId);
const stateOf = async (simulator: Simulator, callId: string) => (await inbound(simulator, callId)).call.state;

/** Audio flows both ways on the agent's call with the caller: the simulator's counts and the page's own. */
async function talks(page: Page, simulator: Simulator, callId: string): Promise<void> {
  await expect.poll(async () => (await inbound(simulator, callId)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(25);
  await expect.poll(async () => (await inbound(simulator, callId)).media?.packetsToBrowser ?? 0).toBeGreaterThan(25);
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(25);
  expect((await pageAudioStats(page)).connectionState).toBe('connected');
}

/** Mute on the caller's call: packets keep reaching the caller, the voiced ones stop; unmute brings them back. */
async function muteSilences(page: Page, simulator: Simulator, callId: string): Promise<void> {
  const counts = async () => {
    const { media } = await inbound(simulator, callId);
    return { packets: media?.packetsFromBrowser ?? 0, voiced: media?.voicedPacketsFromBrowser ?? 0 };
  };
  /** The counts once `n` more packets from the page reached the caller (the packets are the clock: no sleeps). */
  const past = async (n: number) => {
    const from = (await counts()).packets;
    await expect.poll(async () => (await counts()).packets).toBeGreaterThan(from + n);
    return counts();
  };
  const mute = page.getByRole('button', { name: 'Mute' });
  await mute.click();
  await expect(mute).toHaveAttribute('aria-pressed', 'true');
  // Packets already on the way when the track was disabled may still be voiced: count from after them.
  const settled = await past(10);
  const later = await past(50);
  expect(later.voiced).toBe(settled.voiced);
  await mute.click();
  await expect(mute).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(async () => (await counts()).voiced).toBeGreaterThan(later.voiced + 10);
}

/** Presses `digits` on the page's keypad; resolves once the caller heard them all, in order, by RFC 4733. */
async function keysReachTheCaller(page: Page, simulator: Simulator, callId: string, digits: readonly string[]): Promise<void> {
  await page.getByRole('button', { name: 'Keypad' }).click();
  const keypad = page.getByRole('group', { name: 'Keypad' });
  for (const digit of digits) await keypad.getByRole('button', { name: `Dial ${digit}` }).click();
  await expect(page.getByTestId('digits-sent')).toHaveText(digits.join(''));
  const heard = async () => (await inbound(simulator, callId)).facts.dtmf.map(({ digit, method }) => `${digit}:${method}`);
  await expect.poll(heard).toEqual(digits.map((digit) => `${digit}:rfc4733`));
}

/**
 * The agent's page holds `caller`, connected, as its call (`status().call`, with the caller's `queueId`), on its
 * call card in the words of a caller from queue `queue`, and in its call state diagram.
 */
async function holdsCaller(page: Page, caller: InboundCallRecord, queue: string): Promise<void> {
  const { id, from, queueId } = caller;
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  await expect(page.getByTestId('call-id')).toHaveText(id);
  await expect(page.getByTestId('call-queue')).toHaveText(queueId);
  const card = page.getByTestId('call-card');
  await expect(card.getByTestId('call-words')).toHaveText(`Connected to ${from} from the ${queue} queue`);
  await expect(card.getByTestId('call-parties')).toHaveText(`From ${from} to ${LINE} (${queue} queue)`);
  await expect(card.getByRole('button', { name: 'Hang up' })).toBeEnabled();
  await expect(page.getByRole('figure', { name: 'Call states' }).locator('[aria-current="step"]')).toHaveText('connected');
}


test('two agents each answer the next caller and talk (audio both ways, DTMF heard, mute), and a caller who hangs up while queued leaves both panels', async ({ browser, simulator }) => {
  // Two agents' pages, a call each with audio checks and two axe-core runs: more than the suite's usual minute,
  // several times more in Firefox on a loaded machine.
  test.setTimeout(240_000);
  await emptyTheQueues(simulator);
  const first = await openAgent(browser, 'e2e-queue-first');
  const second = await openAgent(browser, 'e2e-queue-second');
  const a = first.page;
  const b = second.page;
  const agents = [a, b];
  try {
    const ids = await queueIds(a);
    const support = ids.Support ?? '';
    await allList(agents, 'Support', []);
    await allList(agents, 'Sales', []);
    for (const page of agents) await expect(answerNext(page, 'Support')).toBeDisabled();

    // Three callers arrive, one after another: every panel lists each as it comes, oldest first.
    const numbers = ['+14155550111', '+14155550112', '+14155550113'];
    const callers = [];
    for (const [i, from] of numbers.entries()) {
      callers.push(await simulator.inbound({ queueId: support, from, to: LINE }));
      await allList(agents, 'Support', numbers.slice(0, i + 1));
    }
    const [one, two, three] = callers;
    if (!one || !two || !three) throw new Error('three callers arrived');
    for (const page of agents) {
      await expect(panel(page).getByTestId('queue-summary')).toHaveText('Support: 3 callers waiting; Sales: nobody waiting');
      await expect(answerNext(page, 'Support')).toBeEnabled();
      await expect(answerNext(page, 'Sales')).toBeDisabled();
    }
    // The wait times count up, live.
    const oldest = queueIn(a, 'Support').getByTestId('wait-time').first();
    await expect(oldest).toHaveText(/^0:\d\d$/);
    const before = (await oldest.textContent()) ?? '';
    await expect(oldest).not.toHaveText(before);
    expect(await axeViolations(a), 'callers waiting').toEqual([]);

    // The first agent answers the next caller: the oldest rings its page, and it is gone from both panels.
    await answerNext(a, 'Support').click();
    await holdsCaller(a, one, 'Support');
    await allList(agents, 'Support', [two.from, three.from]);
    expect((await inbound(simulator, one.id)).call.state).toBe('established');
    expect((await inbound(simulator, one.id)).facts.browserFinalStatus).toBe(200);
    // Busy with a caller, the first agent cannot take another.
    await expect(answerNext(a, 'Support')).toBeDisabled();

    // The second agent answers the next: the second caller.
    await answerNext(b, 'Support').click();
    await holdsCaller(b, two, 'Support');
    await allList(agents, 'Support', [three.from]);
    await expect.poll(() => stateOf(simulator, two.id)).toBe('established');
    expect(await axeViolations(b), 'in a call with a caller waiting').toEqual([]);
    await screenshot(b, '08-queue-call');

    // Each talks with their caller, the keypad's digits reach that caller, and mute silences the agent.
    await talks(a, simulator, one.id);
    await talks(b, simulator, two.id);
    await keysReachTheCaller(a, simulator, one.id, ['5', '#']);
    await keysReachTheCaller(b, simulator, two.id, ['7']);
    await muteSilences(b, simulator, two.id);
    // Each caller heard only their own agent.
    expect((await inbound(simulator, two.id)).facts.dtmf.map(({ digit }) => digit)).toEqual(['7']);

    // The third caller gives up while queued: both panels drop the caller, and say so on their live line.
    await simulator.callerHangup(three.id);
    await allList(agents, 'Support', []);
    for (const page of agents) await expect(panel(page).getByTestId('queue-summary')).toHaveText('Support: nobody waiting; Sales: nobody waiting');
    expect(await stateOf(simulator, three.id)).toBe('finished');

    // The first agent hangs up; the second's caller hangs up: each call ends on its page and at the service.
    await hangUp(a);
    await expect(a.getByTestId('call-state')).toHaveText('ended');
    await expect(a.getByTestId('call-words')).toHaveText(/^Ended/);
    await expect.poll(() => stateOf(simulator, one.id)).toBe('finished');
    await simulator.callerHangup(two.id);
    await expect(b.getByTestId('call-state')).toHaveText('ended');
    await expect(b.getByTestId('busy')).toHaveText('false');
    await expect.poll(async () => (await pageAudioStats(b)).connectionState).toBe('closed');
  } finally {
    await first.context.close();
    await second.context.close();
  }
});

test("an agent whose page never answers puts the caller back at the head of the queue, and the next agent gets that caller", async ({ browser, simulator }) => {
  test.setTimeout(240_000);
  await emptyTheQueues(simulator);
  // The silent agent's page never sees the INVITE of a claimed caller (`X-Call-Id`): its SIP socket is routed and
  // that one request dropped on the way, so the service rings a page that does not answer. All else passes.
  const dropped: string[] = [];
  const silent = await openAgent(browser, 'e2e-queue-silent', (page) =>
    page.routeWebSocket(/\/sip$/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((message) => {
        if (typeof message === 'string' && message.startsWith('INVITE ') && /^X-Call-Id:/im.test(message)) return void dropped.push(message);
        ws.send(message);
      });
    }),
  );
  const next = await openAgent(browser, 'e2e-queue-next');
  const agents = [silent.page, next.page];
  try {
    const sales = (await queueIds(next.page)).Sales ?? '';
    const first = await simulator.inbound({ queueId: sales, from: '+14155550121', to: LINE });
    await allList(agents, 'Sales', [first.from]);
    const second = await simulator.inbound({ queueId: sales, from: '+14155550122', to: LINE });
    await allList(agents, 'Sales', [first.from, second.from]);

    // The silent agent claims the head caller: it leaves the panels, and its page waits for the call to ring.
    await answerNext(silent.page, 'Sales').click();
    await expect(silent.page.getByTestId('call-queue')).toHaveText(sales);
    await allList(agents, 'Sales', [second.from]);
    await expect(silent.page.getByTestId('call-words')).toHaveText(/^(Answering the next caller from Sales|Caller from the Sales queue: connecting this page)$/);
    await expect.poll(() => stateOf(simulator, first.id)).toBe('dequeuing');
    await expect.poll(() => dropped.length).toBe(1);

    // Nobody answers: the service puts the caller back at the head, and both panels list the caller first again.
    await expect.poll(() => stateOf(simulator, first.id), { timeout: REQUEUE_MS }).toBe('queued');
    const { facts } = await inbound(simulator, first.id);
    expect(facts.history.map(({ state }) => state)).toEqual(['queued', 'dequeuing', 'queued']);
    expect(facts.browserAnsweredAt).toBeNull();
    await allList(agents, 'Sales', [first.from, second.from]);
    // The silent agent's page learns the caller is no longer its own.
    await expect(silent.page.getByTestId('busy')).toHaveText('false', { timeout: REQUEUE_MS });
    await expect(silent.page.getByTestId('call-state')).toHaveText('ended');
    await expect(silent.page.getByTestId('call-words')).toHaveText('Ended: this page did not answer, the caller is back in the queue');

    // The next agent's Answer next takes that same caller, first in line, and talks.
    await answerNext(next.page, 'Sales').click();
    await holdsCaller(next.page, first, 'Sales');
    await allList(agents, 'Sales', [second.from]);
    await talks(next.page, simulator, first.id);
    expect((await inbound(simulator, first.id)).call.agentId).not.toBeNull();

    await hangUp(next.page);
    await simulator.callerHangup(second.id);
    await allList(agents, 'Sales', []);
  } finally {
    await silent.context.close();
    await next.context.close();
  }
});

test('a reload while talking with a caller shows that caller for cleanup, and Hang up ends the call at the service', async ({ browser, simulator }) => {
  test.setTimeout(180_000);
  await emptyTheQueues(simulator);
  const agent = await openAgent(browser, 'e2e-queue-reload');
  const page = agent.page;
  try {
    const support = (await queueIds(page)).Support ?? '';
    const caller = await simulator.inbound({ queueId: support, from: '+14155550141', to: LINE });
    await allList([page], 'Support', [caller.from]);
    await answerNext(page, 'Support').click();
    await holdsCaller(page, caller, 'Support');

    // The reload ends the page's audio (closeProtection asks first); recover() finds the caller among the agent's.
    await reloadConfirmed(page);
    await expect(page.getByTestId('connection')).toHaveText('recovery_required');
    await expect(page.getByTestId('call-id')).toHaveText(caller.id);
    await expect(page.getByTestId('call-queue')).toHaveText(support);
    await expect(page.getByTestId('busy')).toHaveText('true');
    await expect(page.getByRole('button')).toHaveText(['Hang up', 'End session']);
    expect(await stateOf(simulator, caller.id)).toBe('established');

    await page.getByRole('button', { name: 'Hang up' }).click();
    await expect(page.getByTestId('busy')).toHaveText('false');
    await expect(page.getByTestId('call-state')).toHaveText('ended');
    expect(await stateOf(simulator, caller.id)).toBe('finished');
    await page.getByRole('button', { name: 'End session' }).click();
    await expect(page.getByTestId('connection')).toHaveText('disconnected');
  } finally {
    await agent.context.close();
  }
});

test('a queue webhook not signed with the queues secret is refused 401 and shows nobody on the panel', async ({ browser, simulator }) => {
  await emptyTheQueues(simulator);
  const agent = await openAgent(browser, 'e2e-queue-forged');
  const page = agent.page;
  try {
    const support = (await queueIds(page)).Support ?? '';
    const forged = serializeEvent({ event: 'call.received', callId: 'c_forged0000000000000001', queueId: support, from: '+14155550199', to: LINE, state: 'queued' });
    const post = (headers: Record<string, string>) => fetch(`${process.env.E2E_BASE_URL}/voice/queue-events`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: forged });

    // Signed with another secret, and not signed at all: each the same 401, nothing passed on.
    const attempts: Array<Record<string, string>> = [{ [SIGNATURE_HEADER]: signBody(forged, 'not-the-queues-secret') }, {}];
    for (const headers of attempts) {
      const refused = await post(headers);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'invalid_signature' });
    }

    // A real caller arrives after the forgeries: the panel shows that caller alone, so no forged one came before.
    const real = await simulator.inbound({ queueId: support, from: '+14155550131', to: LINE });
    await allList([page], 'Support', [real.from]);
    await expect(panel(page)).not.toContainText('+14155550199');
    await expect(panel(page).getByTestId('queue-summary')).toHaveText('Support: 1 caller waiting; Sales: nobody waiting');

    await simulator.callerHangup(real.id);
    await allList([page], 'Support', []);
  } finally {
    await agent.context.close();
  }
});

test('a test caller sent from the page (the embedded simulator) arrives in the queue picked, on the panel and at the service', async ({ browser, simulator }) => {
  await emptyTheQueues(simulator);
  const agent = await openAgent(browser, 'e2e-queue-send-caller');
  const page = agent.page;
  try {
    const { Support: support } = await queueIds(page);
    await queueIn(page, 'Support').getByRole('button', { name: 'Send a test caller to Support' }).click();
    await expect(panel(page).getByTestId('caller-note')).toHaveText(/^Sent a test caller, \+14155550\d{3}, to Support$/);
    const from = /(\+\d+)/.exec((await panel(page).getByTestId('caller-note').textContent()) ?? '')?.[1] ?? '';
    await allList([page], 'Support', [from]);
    await expect(panel(page).getByTestId('queue-summary')).toHaveText('Support: 1 caller waiting; Sales: nobody waiting');
    // The service holds it queued in Support, as any caller the control API made.
    const response = await fetch(`${simulator.url}/api/v1/voice/calls?status=active`, { headers: { 'x-api-key': SIM_API_KEY } });
    const { calls } = (await response.json()) as { calls: Array<{ id: string; queueId?: string; from?: string; state: string }> };
    expect(calls.filter((call) => call.from === from)).toEqual([expect.objectContaining({ queueId: support, state: 'queued' })]);
    await emptyTheQueues(simulator);
    await allList([page], 'Support', []);
  } finally {
    await agent.context.close();
  }
});
