import type { Page } from '@playwright/test';
import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, screenshot, test, type Simulator } from './fixtures.js';

/**
 * spec 3.2: session or registration expiry (the earlier) blocks new calls; an accepted call keeps running to
 * its own end; renew() brings calls back.
 *
 * The simulator expires the session now (POST /__sim/sessions/:id/expire) and drops its registration, but a
 * service does not tell the page: the page learns at its next REGISTER refresh (the registrar refuses it) or at
 * its own timer on the session's `expiresAt`. Those are 10 minutes and an hour away, so the page's clock is
 * installed and fast-forwarded (Playwright's clock: the page's timers and Date only; network, media and the
 * simulator keep real time).
 */

const REGISTRATION_REFRESH = '10:00';
const SESSION_LIFETIME = '01:00:00';

async function expireAtSimulator(simulator: Simulator, sessionId: string) {
  expect((await simulator.expireSession(sessionId)).status).toBe('expired');
}

const callButton = (page: Page) => page.getByRole('button', { name: 'Call', exact: true });

/** Renew gives a new session, and a call on it connects and hangs up. */
async function renewThenCall(page: Page, oldSessionId: string) {
  await page.getByRole('button', { name: 'Renew' }).click();
  await expect(page.getByTestId('connection')).toHaveText('ready');
  await expect(page.getByTestId('session-id')).not.toHaveText(oldSessionId);
  await callConnected(page);
  await hangUp(page);
}

test('a call the service refuses for an expired session shows expired at once, in words; renew brings calls back', async ({ page, simulator }) => {
  const sessionId = await logInAndConnect(page, 'e2e-expiry-refused');
  await expireAtSimulator(simulator, sessionId);

  // The page has not been told; the service's 409 browser_session_unavailable tells it.
  await callButton(page).click();
  await expect(page.getByTestId('connection')).toHaveText('expired');
  await expect(page.getByTestId('error-code')).toContainText('browser_session_unavailable');
  await expect(page.getByTestId('error-advice')).toContainText('Renew it');
  await expect(page.getByTestId('busy')).toHaveText('false');
  await expect(callButton(page)).toBeDisabled();
  expect(await simulator.callsOfSession(sessionId)).toEqual([]);

  await renewThenCall(page, sessionId);
});

test('an expired session the page never called on: at the registration refresh the page shows expired; renew brings calls back', async ({ page, simulator }) => {
  await page.clock.install();
  const sessionId = await logInAndConnect(page, 'e2e-expiry-idle');
  await expireAtSimulator(simulator, sessionId);
  await expect(page.getByTestId('connection')).toHaveText('ready');

  // The SIP.js registerer refreshes before its 600 s run out; the registrar refuses the expired session's credentials.
  await page.clock.fastForward(REGISTRATION_REFRESH);
  await expect(page.getByTestId('connection')).toHaveText('expired');
  // Which path told the page: the registration ending (`openSipLink`), not the expiresAt timer.
  await expect(page.getByTestId('error-code')).toContainText('browser_session_unavailable: the SIP registration ended');
  await expect(page.getByTestId('error-advice')).toContainText('Renew it');
  await screenshot(page, '06-expired');
  await expect(callButton(page)).toBeDisabled();

  await renewThenCall(page, sessionId);
});

test('a connected call outlives the expiry of its session, with audio, until hung up; then renew', async ({ page, simulator }) => {
  await page.clock.install();
  const sessionId = await logInAndConnect(page, 'e2e-expiry-call');
  const callId = await callConnected(page);
  await expireAtSimulator(simulator, sessionId);
  await page.clock.fastForward(REGISTRATION_REFRESH);
  await expect(page.getByTestId('connection')).toHaveText('expired');
  // The card holds the running call: Hang up, no dialer.
  await expect(callButton(page)).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Hang up' })).toBeEnabled();

  // The call runs on: connected at the service and on the page, audio flowing both ways.
  const sent = (await simulator.call(callId)).media?.packetsFromBrowser ?? 0;
  const received = (await pageAudioStats(page)).received;
  await expect.poll(async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(sent + 25);
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(received + 25);
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'connected', busy: true });
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  await expect(page.getByRole('button', { name: 'Renew' })).toBeDisabled();

  await hangUp(page);
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', busy: false, endReason: 'api_hangup' });
  await expect(page.getByTestId('connection')).toHaveText('expired');
  await renewThenCall(page, sessionId);
});

test("the page's own timer at the session's expiresAt shows expired, even while the registration is still good", async ({ page }) => {
  await page.clock.install();
  await logInAndConnect(page, 'e2e-expiry-timer');
  await page.clock.fastForward(SESSION_LIFETIME);
  await expect(page.getByTestId('connection')).toHaveText('expired');
  // The expiresAt timer the page keeps; the simulator's session is still active.
  await expect(page.getByTestId('error-code')).toContainText('browser_session_unavailable: the session expired');
  await expect(callButton(page)).toBeDisabled();
});
