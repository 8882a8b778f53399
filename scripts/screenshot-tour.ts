import { expect, type Browser, type Page } from '@playwright/test';
import type { SimulatorControl } from '../simulator/http/control-client.js';

/**
 * The walk through the demo that docs/demo.md's screenshots show, in one Chromium against an app started as
 * `npm start` starts it: an agent logs in, connects, calls, hangs up, answers a queue caller while another
 * waits, is rung by an offered caller, and records a call a supervisor listens in to. Each state is saved when
 * the page shows it, so every picture is the current demo's.
 */

/** Where the tour runs, and where it saves the pictures. */
export interface Tour {
  browser: Browser;
  /** The demo's URL. */
  demo: string;
  /** The embedded simulator's control API, which makes the callers arrive. */
  simulator: SimulatorControl;
  /** The folder the PNG files go to. */
  outDir: string;
  /** Told each file as it is saved. */
  saved: (file: string) => void;
}

/** The width of the set of states: a phone's, so the set reads as one. */
const STATE_VIEWPORT = { width: 360, height: 740 };
/** A laptop's and a phone's screen, for the two pictures of a call as a person sees it. */
const DESKTOP_VIEWPORT = { width: 1280, height: 800 };
const PHONE_VIEWPORT = { width: 390, height: 844 };

/** The simulator's number that answers with a tone, then echoes the microphone. */
const TONE_NUMBER = '+12025550100';
/** The desk's line the queue callers dial. */
const LINE = '+18005550100';
/** The supervisor's page reads the calls every few seconds; a new call is listed within this. */
const LISTED_MS = 15_000;

/** Takes every picture, in the order docs/demo.md shows them. */
export async function takeTour(tour: Tour): Promise<void> {
  const agent = await openPage(tour);
  await shoot(tour, agent, '01-login');
  await connect(agent, 'agent1');
  await shoot(tour, agent, '02-ready');
  await connectedCall(tour, agent);
  await agent.getByRole('button', { name: 'Hang up' }).click();
  await expect(agent.getByTestId('call-words')).toHaveText('Ended: you hung up');
  await expect(agent.getByTestId('busy')).toHaveText('false');
  await shoot(tour, agent, '04-ended');
  await queueCall(tour, agent);
  await offeredCall(tour, agent);
  await supervisedCall(tour, agent);
}

/** A page of its own (a context: its own login cookie) with the microphone allowed, on the login form. */
async function openPage(tour: Tour): Promise<Page> {
  const context = await tour.browser.newContext({ baseURL: tour.demo, permissions: ['microphone'], viewport: STATE_VIEWPORT });
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByLabel('Username')).toBeVisible();
  return page;
}

/** Logs in as `user` and connects; resolves once the page is `ready`. */
async function connect(page: Page, user: string): Promise<void> {
  await page.getByLabel('Username').fill(user);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByTestId('connection')).toHaveText('ready');
}

/** A call to the tone number, connected with the keypad open: the state set's picture, then a laptop's and a phone's. */
async function connectedCall(tour: Tour, page: Page): Promise<void> {
  await page.getByLabel('Number to call').fill(TONE_NUMBER);
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('call-words')).toHaveText(`Connected to ${TONE_NUMBER}`);
  await page.getByRole('button', { name: 'Keypad' }).click();
  await page.getByRole('button', { name: 'Dial 5' }).click();
  // The first quality sample comes a moment into the media; the pictures show it.
  await expect(page.getByTestId('call-quality')).toContainText('packets in');
  await shoot(tour, page, '03-connected');
  await page.setViewportSize(DESKTOP_VIEWPORT);
  await shoot(tour, page, 'desktop-connected', { asSeen: true });
  await page.setViewportSize(PHONE_VIEWPORT);
  await shoot(tour, page, 'phone-connected', { asSeen: true });
  await page.setViewportSize(STATE_VIEWPORT);
}

/** The demo's queue ids by name, as the logged-in page lists them. */
async function queueIds(page: Page): Promise<Record<string, string>> {
  const { queues } = (await (await page.request.get('/voice/queues')).json()) as { queues: Array<{ id: string; name: string }> };
  return Object.fromEntries(queues.map(({ name, id }) => [name, id]));
}

/** Two callers reach the Support queue; the agent answers the first while the second waits. */
async function queueCall(tour: Tour, page: Page): Promise<void> {
  const support = (await queueIds(page)).Support ?? '';
  const first = await tour.simulator.inbound({ queueId: support, from: '+14155550111', to: LINE });
  const second = await tour.simulator.inbound({ queueId: support, from: '+14155550112', to: LINE });
  const queue = page.getByRole('region', { name: 'Queues' }).locator('[data-testid="queue"][data-queue-name="Support"]');
  await expect(queue.getByTestId('caller-number')).toHaveText([first.from, second.from]);
  await page.getByRole('button', { name: 'Answer next in Support' }).click();
  await expect(page.getByTestId('call-words')).toHaveText(`Connected to ${first.from} from the Support queue`);
  await expect(queue.getByTestId('caller-number')).toHaveText([second.from]);
  await shoot(tour, page, '05-queue-call');
  await page.getByRole('button', { name: 'Hang up' }).click();
  await expect(page.getByTestId('busy')).toHaveText('false');
  await tour.simulator.callerHangup(second.id);
  await expect(queue.getByTestId('caller-number')).toHaveCount(0);
}

/** The agent says available; a caller reaches the Sales queue (offer mode) and rings the page. */
async function offeredCall(tour: Tour, page: Page): Promise<void> {
  const toggle = page.getByRole('switch', { name: 'Available for offered callers' });
  await toggle.click();
  await expect(page.getByTestId('availability')).toHaveText('available');
  const caller = await tour.simulator.inbound({ queueId: (await queueIds(page)).Sales ?? '', from: '+14155550171', to: LINE });
  const card = page.getByTestId('offer-card');
  await expect(card.getByTestId('offer-caller')).toHaveText(caller.from, { timeout: LISTED_MS });
  await shoot(tour, page, '06-offer-ringing');
  await card.getByRole('button', { name: 'Accept' }).click();
  await expect(page.getByTestId('call-words')).toHaveText(`Connected to ${caller.from} from the Sales queue`);
  await page.getByRole('button', { name: 'Hang up' }).click();
  await expect(page.getByTestId('busy')).toHaveText('false');
  await toggle.click();
  await expect(page.getByTestId('availability')).toHaveText('away');
}

/** The agent calls and records; a supervisor, `lead1`, listens in from their own page. */
async function supervisedCall(tour: Tour, agent: Page): Promise<void> {
  await agent.getByLabel('Number to call').fill(TONE_NUMBER);
  await agent.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(agent.getByTestId('call-words')).toHaveText(`Connected to ${TONE_NUMBER}`);
  await agent.getByRole('button', { name: 'Record', exact: true }).click();
  await expect(agent.getByTestId('recording')).toHaveText('● Recording');
  const lead = await openPage(tour);
  await connect(lead, 'lead1');
  const listen = lead.getByRole('button', { name: 'Listen in to agent1' });
  await expect(listen).toBeEnabled({ timeout: LISTED_MS });
  await listen.click();
  await expect(lead.getByTestId('call-words')).toHaveText('Listening to agent1');
  await expect(lead.getByTestId('call-quality').last()).toContainText('packets in');
  await shoot(tour, lead, '07-supervisor-listening');
  await expect(agent.getByTestId('call-quality').last()).toContainText('packets in');
  await shoot(tour, agent, '08-recording');
  await agent.getByRole('button', { name: 'Stop recording' }).click();
  await agent.getByRole('button', { name: 'Hang up' }).click();
  await expect(agent.getByTestId('busy')).toHaveText('false');
  await expect(lead.getByTestId('busy')).toHaveText('false');
}

/**
 * Saves `page` as `<name>.png`: the full page at the state set's width, or with `asSeen` exactly the viewport, as
 * a person at that screen sees it.
 */
async function shoot(tour: Tour, page: Page, name: string, options: { asSeen?: boolean } = {}): Promise<void> {
  const path = `${tour.outDir}/${name}.png`;
  // A viewport's picture shows the top of the page, whatever an earlier click scrolled to.
  if (options.asSeen) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path, fullPage: !options.asSeen, animations: 'disabled', caret: 'hide' });
  tour.saved(path);
}
