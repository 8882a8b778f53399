import type { Browser, BrowserContext, Page, Request } from '@playwright/test';
import { startApp } from '../scripts/start-app.js';
import { createSimulatorControl, type InboundCallRecord } from '../simulator/http/control-client.js';
import { axeViolations, expect, logInAndConnect, pageAudioStats, recordPeerConnections, screenshot, SIM_API_KEY, test, type Simulator } from './fixtures.js';
import { startEdge } from './sip-edge.js';

/**
 * Offer mode (docs/desk.md, "Offer mode"), in real browsers against the demo server and its
 * simulator: the demo's Sales queue rings each caller at the longest-idle available agent, whose page shows the
 * ringing card and answers with Accept (or A), or sends the caller on with Decline; an offer left ringing past
 * the page's `offers.ringMs` makes its agent away, and the caller goes on. Three agents, five callers, each
 * caller offered to one agent at a time and answered exactly once, as the simulator's own record of each call
 * says. The spec runs an app of its own whose service rings an agent longer than the real one does, and the
 * agent whose ringing card is audited (Ben) rings as long (`?ringMs=`): a slow engine's axe audit on a loaded
 * machine may outlast the usual ring, and the card must still ring when the audit ends. The absent agent's page
 * rings for a few seconds only, well under the service's, so that page gives up first.
 */

const LINE = '+18005550100';
/** The service's ring time for an offered agent: past a loaded machine's axe audit of a ringing card. */
const SERVICE_RING_MS = 60_000;
/** The audited agent's ring time: as long as the service's, so the page does not give up while audited. */
const AUDITED_RING_MS = SERVICE_RING_MS;
/** The absent agent's ring time: far under the service's, so the page gives up first, with room to accept from the keyboard. */
const ABSENT_RING_MS = 8000;
/** Room for a decline or a ring-out to reach the proxy (its claim watch) and the next offer to ring. */
const ROUTED_MS = 60_000;

/** An agent: its own browser context (its own user, `e2e-offer-<name>`), logged in and connected. */
interface Agent {
  name: string;
  context: BrowserContext;
  page: Page;
}

/**
 * Run in each agent's page before its scripts: records every ringing card's caller as it comes and goes
 * (`window.__offers`, on the shared system clock), and counts the page's AudioContexts (the ringer's tone).
 */
function recordOffers(): void {
  const seen: Array<{ callId: string; from: number; to: number | null }> = [];
  const w = window as unknown as { __offers: typeof seen; __audioContexts: number };
  w.__offers = seen;
  w.__audioContexts = 0;
  const Native = window.AudioContext;
  if (typeof Native === 'function') {
    window.AudioContext = class extends Native {
      constructor(options?: AudioContextOptions) {
        super(options);
        w.__audioContexts += 1;
      }
    };
  }
  const check = () => {
    const callId = document.querySelector('[data-testid="offer-card"]')?.getAttribute('data-call-id') ?? null;
    const open = seen.at(-1);
    if (open && open.to === null && open.callId === callId) return;
    if (open && open.to === null) open.to = Date.now();
    if (callId) seen.push({ callId, from: Date.now(), to: null });
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-call-id'] });
}

async function openAgent(browser: Browser, baseURL: string, name: string, path = '/'): Promise<Agent> {
  const context = await browser.newContext({ baseURL, permissions: ['microphone'] });
  await context.addInitScript(recordPeerConnections);
  await context.addInitScript(recordOffers);
  const page = await context.newPage();
  await logInAndConnect(page, `e2e-offer-${name}`, path);
  return { name, context, page };
}

const availability = (agent: Agent) => agent.page.getByTestId('availability');
const offerCard = (agent: Agent) => agent.page.getByTestId('offer-card');
const inbound = (simulator: Simulator, callId: string) => simulator.inboundCall(callId);

/** The agent says Available with the switch; resolves once the server's answer shows. */
async function goAvailable(agent: Agent): Promise<void> {
  const toggle = agent.page.getByRole('switch', { name: 'Available for offered callers' });
  await expect(availability(agent)).toHaveText('away');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-checked', 'true');
  await expect(availability(agent)).toHaveText('available');
  await expect(agent.page.getByTestId('availability-words')).toHaveText('Available: Sales callers ring this page');
}

/** `caller` rings `agent`'s page: the ringing card names the caller and the queue, and the service rings that agent. */
async function rings(agent: Agent, caller: InboundCallRecord, simulator: Simulator): Promise<string> {
  const card = offerCard(agent);
  await expect(card).toHaveAttribute('data-call-id', caller.id, { timeout: ROUTED_MS });
  await expect(card.getByTestId('offer-caller')).toHaveText(caller.from);
  await expect(card.getByTestId('offer-queue')).toHaveText(' (Sales queue)');
  await expect(card.getByRole('alert')).toHaveText(`Caller ${caller.from} from the Sales queue is ringing. Press A to accept or D to decline.`);
  const { call } = await inbound(simulator, caller.id);
  expect(call.state).toBe('dequeuing');
  return call.agentId ?? '';
}

/**
 * Room for a hangup to end the call on a loaded machine: the proxy reads the call's owner, then asks the service,
 * each within its upstream deadline, and a terminal read follows.
 */
const ENDED_MS = 45_000;

/**
 * The agent presses Hang up: the press sends the hangup of the call (said apart, should it not), and a terminal
 * read then makes busy false.
 */
async function hangsUp(agent: Agent): Promise<void> {
  const hangup = (request: Request) => request.method() === 'POST' && /^\/voice\/calls\/[^/]+\/hangup$/.test(new URL(request.url()).pathname);
  const sent = agent.page.waitForRequest(hangup, { timeout: 15_000 }).catch((error: unknown) => {
    throw new Error(`${agent.name}'s Hang up sent no hangup request`, { cause: error });
  });
  await agent.page.getByRole('button', { name: 'Hang up' }).click();
  await sent;
  await expect(agent.page.getByTestId('busy')).toHaveText('false', { timeout: ENDED_MS });
}

/** The agent's page holds `caller`, connected, on the usual call card. */
async function talksWith(agent: Agent, caller: InboundCallRecord): Promise<void> {
  await expect(offerCard(agent)).toHaveCount(0);
  await expect(agent.page.getByTestId('call-state')).toHaveText('connected');
  await expect(agent.page.getByTestId('call-id')).toHaveText(caller.id);
  await expect(agent.page.getByTestId('call-words')).toHaveText(`Connected to ${caller.from} from the Sales queue`);
}

/** Audio both ways on the agent's call with `caller`: the simulator's counts and the page's own. */
async function hears(agent: Agent, caller: InboundCallRecord, simulator: Simulator): Promise<void> {
  await expect.poll(async () => (await inbound(simulator, caller.id)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(25);
  await expect.poll(async () => (await inbound(simulator, caller.id)).media?.packetsToBrowser ?? 0).toBeGreaterThan(25);
  await expect.poll(async () => (await pageAudioStats(agent.page)).received).toBeGreaterThan(25);
}

/** The offers each page showed, by caller: which agent, and when (the pages share the system clock). */
async function offersSeen(agents: readonly Agent[]): Promise<Array<{ agent: string; callId: string; from: number; to: number }>> {
  const all = [];
  for (const agent of agents) {
    const seen = await agent.page.evaluate(() => JSON.stringify((window as unknown as { __offers: unknown }).__offers));
    for (const offer of JSON.parse(seen) as Array<{ callId: string; from: number; to: number | null }>) all.push({ agent: agent.name, ...offer, to: offer.to ?? Infinity });
  }
  return all;
}

test('three agents, five callers: each caller rings one agent at a time, a decline and a ring-out send the caller on, and each is answered once', async ({ browser, sipEdge }) => {
  test.setTimeout(300_000);
  // Behind the project's SIP edge, if it has one (the kamailio project), as the fixture's own app is.
  const edge = await startEdge(sipEdge);
  // Every variable the spec relies on, set here: the suite's key and quota, and the service's real ring time.
  const app = await startApp({ ...edge.env, SIM_API_KEY, SIM_QUOTA_PER_MINUTE: '100000', SIM_QUOTA_PER_HOUR: '1000000', SIM_QUEUE_ANSWER_TIMEOUT_MS: String(SERVICE_RING_MS) }).catch(async (error: unknown) => {
    await edge.stop();
    throw error;
  });
  const simulator: Simulator = { url: app.sim, ...createSimulatorControl(app.sim) };
  const agents: Agent[] = [];
  const callers: InboundCallRecord[] = [];
  try {
    // The absent agent, Cy: a page whose offers ring out long before the service gives up on them. One after
    // another, as agents come to work: three browsers starting at once on a loaded machine test the machine.
    for (const [name, path] of [['ada', '/'], ['ben', `/?ringMs=${AUDITED_RING_MS}`], ['cy', `/?ringMs=${ABSENT_RING_MS}`]] as const) agents.push(await openAgent(browser, app.demo, name, path));
    const [ada, ben, cy] = agents as [Agent, Agent, Agent];
    const { queues } = (await (await ada.page.request.get('/voice/queues')).json()) as { queues: Array<{ id: string; name: string }> };
    const sales = queues.find((queue) => queue.name === 'Sales')?.id ?? '';
    for (const agent of agents) await expect(agent.page.getByTestId('queue').filter({ hasText: 'Sales' }).getByTestId('queue-mode')).toHaveText('Callers here ring the longest-idle available agent');
    // Every agent says available, in turn: Ada has been idle longest, then Ben, then Cy.
    for (const agent of agents) await goAvailable(agent);
    const arrive = async (from: string) => {
      const caller = await simulator.inbound({ queueId: sales, from, to: LINE });
      callers.push(caller);
      return caller;
    };
    const agentIds = new Map<string, string>();

    // The first caller rings Ada, the longest idle; she declines (D), and the caller goes on to Ben, who accepts.
    const first = await arrive('+14155550171');
    agentIds.set('ada', await rings(ada, first, simulator));
    expect(await ada.page.evaluate(() => (window as unknown as { __audioContexts: number }).__audioContexts)).toBeGreaterThan(0);
    await ada.page.keyboard.press('d');
    await expect(offerCard(ada)).toHaveCount(0);
    agentIds.set('ben', await rings(ben, first, simulator));
    expect(await axeViolations(ben.page), 'a caller ringing').toEqual([]);
    await screenshot(ben.page, '09-offer-ringing');
    await offerCard(ben).getByRole('button', { name: 'Accept' }).click();
    await talksWith(ben, first);
    await hears(ben, first, simulator);

    // The second caller rings Cy (idle since she said so, before Ada's decline), who lets it ring out: her page
    // declines it and says her away, and the caller goes on to Ada, who accepts from the keyboard.
    const second = await arrive('+14155550172');
    agentIds.set('cy', await rings(cy, second, simulator));
    await expect(availability(cy)).toHaveText('away', { timeout: ROUTED_MS });
    await expect(cy.page.getByRole('switch', { name: 'Available for offered callers' })).toHaveAttribute('aria-checked', 'false');
    await expect(cy.page.getByTestId('availability-words')).toHaveText('Away: Sales callers are not offered to you');
    await expect(offerCard(cy)).toHaveCount(0);
    await rings(ada, second, simulator);
    await ada.page.keyboard.press('a');
    await talksWith(ada, second);
    await hears(ada, second, simulator);

    // Three more callers: with Ada and Ben talking and Cy away, they wait, listed on every panel.
    const rest = [await arrive('+14155550173'), await arrive('+14155550174'), await arrive('+14155550175')];
    const [third, fourth, fifth] = rest as [InboundCallRecord, InboundCallRecord, InboundCallRecord];
    // (In any order: concurrent webhooks may land out of order, and the panels take the service's order only at the next re-read.)
    const listed = (agent: Agent) => agent.page.getByTestId('queue').filter({ hasText: 'Sales' }).getByTestId('caller-number').allTextContents();
    for (const agent of agents) await expect.poll(async () => (await listed(agent)).sort()).toEqual(rest.map((caller) => caller.from));
    // Cy is back: the head caller rings her at once, and she accepts from the keyboard before her short ring ends.
    await cy.page.getByRole('switch', { name: 'Available for offered callers' }).click();
    await expect(offerCard(cy)).toHaveAttribute('data-call-id', third.id, { timeout: ROUTED_MS });
    await cy.page.keyboard.press('a');
    await talksWith(cy, third);
    // Ada and Ben hang up: after the wrap-up, each is offered one of the two callers left, and takes it.
    await Promise.all([hangsUp(ada), hangsUp(ben)]);
    const taken = await Promise.all(
      [ada, ben].map(async (agent) => {
        await expect(offerCard(agent)).toHaveAttribute('data-call-id', /^c_/, { timeout: ROUTED_MS });
        const callId = (await offerCard(agent).getAttribute('data-call-id')) ?? '';
        await offerCard(agent).getByRole('button', { name: 'Accept' }).click();
        await talksWith(agent, callId === fourth.id ? fourth : fifth);
        return callId;
      }),
    );
    expect([...taken].sort()).toEqual([fourth.id, fifth.id].sort());
    for (const agent of agents) await expect(agent.page.getByTestId('queue').filter({ hasText: 'Sales' }).getByTestId('queue-empty')).toHaveText('Nobody waiting');

    // The service's record: each caller answered exactly once, by the agent whose page took it, after one
    // dequeue per agent it rang (back in the queue between two).
    const takerOf = new Map([[first.id, ben], [second.id, ada], [third.id, cy], [taken[0]!, ada], [taken[1]!, ben]]);
    for (const caller of callers) {
      const { call, facts } = await inbound(simulator, caller.id);
      const states = facts.history.map(({ state }) => state);
      expect(states.filter((state) => state === 'established'), caller.from).toHaveLength(1);
      expect(states.join(' '), caller.from).toMatch(/^queued( dequeuing queued)* dequeuing established( finished)?$/);
      expect(call.agentId, caller.from).toBe(agentIds.get(takerOf.get(caller.id)?.name ?? ''));
      expect(facts.browserFinalStatus, caller.from).toBe(200);
    }
    // Rung per caller, across the pages: the first on Ada then Ben, the second on Cy then Ada, the rest once
    // each, never on two pages at once; and Cy, while away, was offered nobody.
    const seen = await offersSeen(agents);
    const byCaller = callers.map((caller) => seen.filter((offer) => offer.callId === caller.id).sort((a, b) => a.from - b.from));
    expect(byCaller.map((offers) => offers.map((offer) => offer.agent))).toEqual([['ada', 'ben'], ['cy', 'ada'], ['cy'], [takerOf.get(fourth.id)?.name], [takerOf.get(fifth.id)?.name]]);
    for (const offers of byCaller) for (let i = 1; i < offers.length; i += 1) expect(offers[i]!.from).toBeGreaterThanOrEqual(offers[i - 1]!.to);
    expect(seen.filter((offer) => offer.agent === 'cy').map((offer) => offer.callId)).toEqual([second.id, third.id]);
  } finally {
    // Nobody stays available for the specs after this one, and no caller stays on.
    for (const agent of agents) await agent.page.request.put('/voice/availability', { data: { availability: 'away' } }).catch(() => undefined);
    for (const caller of callers) await simulator.callerHangup(caller.id).catch(() => undefined);
    for (const agent of agents) await agent.context.close();
    await app.stop();
    await edge.stop();
  }
});
