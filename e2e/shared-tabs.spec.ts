import type { BrowserContext, Page } from '@playwright/test';
import type { VoiceBrowser } from '../lib/index.js';
import { expect, hangUp, logIn, recordPeerConnections, test, userOfThisRun, type Simulator } from './fixtures.js';

/**
 * Many tabs, one phone (`tabs: 'shared'`, the default): the tabs of one user in one browser elect a leader
 * (Web Locks) that alone holds the session, the SIP registration, the microphone and the audio; every tab shows
 * its status, and what is clicked in any tab runs there. When the leader closes, another tab takes the phone.
 */

interface Tab {
  page: Page;
}

/**
 * Run in each tab before its scripts: counts the SIP WebSockets the tab opens, in the page itself, since
 * Playwright's `websocket` event has no WebDriver BiDi counterpart (Firefox would report none).
 */
function recordSipSockets(): void {
  const w = window as unknown as { __sipSockets: number };
  w.__sipSockets = 0;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      if (String(url).includes('/sip')) w.__sipSockets += 1;
    }
  };
}

/** How many SIP WebSockets each tab opened since it loaded. */
const sipSockets = (...tabs: Tab[]) => Promise.all(tabs.map(({ page }) => page.evaluate(() => (window as unknown as { __sipSockets: number }).__sipSockets)));

/** Opens the demo in three tabs of one context, logged in as one user; the first tab opened leads. */
async function openTabs(page: Page, context: BrowserContext, user: string): Promise<[Tab, Tab, Tab]> {
  const watch = (opened: Page): Tab => ({ page: opened });
  const first = watch(page);
  // The fixture's page counts its peer connections; the tabs opened here count theirs the same way.
  await context.addInitScript(recordPeerConnections);
  await context.addInitScript(recordSipSockets);
  await logIn(page, user);
  await expect(page.getByTestId('tab-role')).toHaveText('shared, leader');
  const follower = async () => {
    const tab = watch(await context.newPage());
    await tab.page.goto('/');
    await expect(tab.page.getByTestId('tab-role')).toHaveText('shared, follower');
    return tab;
  };
  return [first, await follower(), await follower()];
}

async function callFrom(page: Page, to = '+12025550100'): Promise<string> {
  await page.getByLabel('Number to call').fill(to);
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  return (await page.getByTestId('call-id').textContent()) ?? '';
}

const audioReached = async (simulator: Simulator, callId: string) => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0;
const peerConnections = (page: Page) => page.evaluate(() => (window as unknown as { __pcs?: RTCPeerConnection[] }).__pcs?.length ?? 0);

test('three tabs hold one registration; a call started in tab 2 is answered by the leader, keyed from tab 3 and hung up there', async ({ page, context, simulator }) => {
  const [one, two, three] = await openTabs(page, context, 'e2e-shared-tabs');
  await expect(one.page.getByTestId('tab-words')).toHaveText('This tab holds the phone; your other tabs of this site share it.');

  await two.page.getByRole('button', { name: 'Connect', exact: true }).click();
  for (const tab of [one, two, three]) await expect(tab.page.getByTestId('connection')).toHaveText('ready');
  const sessionId = await one.page.getByTestId('session-id').textContent();
  await expect(three.page.getByTestId('session-id')).toHaveText(sessionId ?? '');
  expect(await sipSockets(one, two, three)).toEqual([1, 0, 0]);

  const callId = await callFrom(two.page);
  await expect(one.page.getByTestId('call-id')).toHaveText(callId);
  await expect(three.page.getByTestId('call-state')).toHaveText('connected');
  // The leader's microphone reaches the far end; the other tabs opened no peer connection.
  await expect.poll(() => audioReached(simulator, callId)).toBeGreaterThan(20);
  expect([await peerConnections(one.page), await peerConnections(two.page), await peerConnections(three.page)]).toEqual([1, 0, 0]);

  await three.page.getByRole('button', { name: 'Keypad' }).click();
  await three.page.getByRole('group', { name: 'Keypad' }).getByRole('button', { name: 'Dial 7' }).click();
  await expect.poll(async () => (await simulator.call(callId)).facts.dtmf.map(({ digit }) => digit)).toEqual(['7']);

  await hangUp(three.page);
  for (const tab of [one, two]) await expect(tab.page.getByTestId('busy')).toHaveText('false');
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', endReason: 'api_hangup' });
  expect(await sipSockets(one, two, three)).toEqual([1, 0, 0]);
});

test('two tabs calling at once make one call', async ({ page, context, simulator }) => {
  // The library itself in three tabs (the script tag), so both calls start at one instant whatever the page shows.
  const login = await page.request.post('/auth/login', { data: { username: userOfThisRun('e2e-shared-tabs-race') } });
  expect(login.status()).toBe(200);
  const tabs = [page, await context.newPage(), await context.newPage()];
  for (const tab of tabs) {
    await tab.goto('/auth/me');
    await tab.addScriptTag({ url: '/lib/voice-browser.min.js' });
    await tab.evaluate(() => {
      const api = window.VoiceBrowser;
      Object.assign(window, { voice: api.createVoiceBrowser({ backend: api.createFetchBackend(), remoteAudio: document.body.appendChild(document.createElement('audio')) }) });
    });
  }
  const [, two, three] = tabs as [Page, Page, Page];
  await two.evaluate(() => (window as unknown as { voice: VoiceBrowser }).voice.connect());
  const sessionId = await three.evaluate(() => (window as unknown as { voice: VoiceBrowser }).voice.status().session?.id ?? '');
  expect(sessionId).toMatch(/^bs_/);

  // Both tabs call at the same instant of the one clock they share, each with an intent (key) of its own.
  const at = Date.now() + 300;
  const outcomes = await Promise.all(
    [two, three].map((tab, i) =>
      tab.evaluate(
        async ({ at, key }) => {
          await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
          const voice = (window as unknown as { voice: VoiceBrowser }).voice;
          return voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: key }).then(
            (call) => call.id,
            (error: { code: string }) => error.code,
          );
        },
        { at, key: `race-${i}-${Date.now()}` },
      ),
    ),
  );
  expect(outcomes.filter((outcome) => outcome.startsWith('bc_'))).toHaveLength(1);
  expect(outcomes).toContain('browser_agent_busy');
  expect(await simulator.callsOfSession(sessionId)).toHaveLength(1);
  await two.evaluate(async () => {
    const voice = (window as unknown as { voice: VoiceBrowser }).voice;
    await voice.hangup();
  });
});

test('the leader closed mid-call: another tab takes the phone, shows the call for cleanup, and hangs it up', async ({ page, context, simulator }) => {
  const [one, two, three] = await openTabs(page, context, 'e2e-shared-tabs-close');
  await one.page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(two.page.getByTestId('connection')).toHaveText('ready');
  const callId = await callFrom(three.page);

  await one.page.close();
  await expect(two.page.getByTestId('tab-role')).toHaveText('shared, leader');
  for (const tab of [two, three]) {
    await expect(tab.page.getByTestId('connection')).toHaveText('recovery_required');
    await expect(tab.page.getByTestId('call-id')).toHaveText(callId);
  }
  await three.page.getByRole('button', { name: 'Hang up' }).click();
  await expect(two.page.getByTestId('busy')).toHaveText('false');
  expect((await simulator.call(callId)).call.state).toBe('ended');
  await two.page.getByRole('button', { name: 'End session' }).click();
  await expect(three.page.getByTestId('connection')).toHaveText('disconnected');
  // Nothing was dialled again, and the new leader never registered (no audio to reattach: spec 4.9).
  expect(await sipSockets(two)).toEqual([0]);
});

test('the leader closed while idle and ready: the next tab connects by itself and takes calls', async ({ page, context }) => {
  const [one, two, three] = await openTabs(page, context, 'e2e-shared-tabs-idle');
  await one.page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(three.page.getByTestId('connection')).toHaveText('ready');
  const before = await three.page.getByTestId('session-id').textContent();

  await one.page.close();
  await expect(two.page.getByTestId('tab-role')).toHaveText('shared, leader');
  await expect(three.page.getByTestId('connection')).toHaveText('ready');
  await expect(three.page.getByTestId('session-id')).not.toHaveText(before ?? '');
  expect(await sipSockets(two)).toEqual([1]);

  await callFrom(three.page);
  await hangUp(three.page);
});
