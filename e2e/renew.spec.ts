import { callConnected, expect, hangUp, INDEPENDENT, logInAndConnect, test } from './fixtures.js';

/** spec 4.9: renew() only while idle; it replaces the session (fresh credentials and expiry), and the old one ends. */

test('renew while idle gives a new session, ends the old one, and calls still work', async ({ page, simulator }) => {
  const before = await logInAndConnect(page, 'e2e-renew');
  await page.getByRole('button', { name: 'Renew' }).click();
  await expect(page.getByTestId('session-id')).not.toHaveText(before);
  await expect(page.getByTestId('connection')).toHaveText('ready');
  const after = (await page.getByTestId('session-id').textContent()) ?? '';
  expect(after).toMatch(/^bs_/);
  const old = await page.evaluate(async (id) => (await (await fetch(`/voice/browser-sessions/${id}`)).json()) as { session: { status: string } }, before);
  expect(old.session.status).toBe('ended');

  const callId = await callConnected(page);
  expect((await simulator.call(callId)).call.sessionId).toBe(after);
  await hangUp(page);
  await expect(page.getByRole('button', { name: 'Renew' })).toBeEnabled();
});

test('renew during a call is refused: disabled in the calling tab, browser_agent_busy in words in another tab', async ({ page, context }) => {
  // Independent tabs: B connects first and stays idle; A, opened after, finds B's session, cleans it up, connects and calls.
  const tabB = page;
  await logInAndConnect(tabB, 'e2e-renew-busy', INDEPENDENT);
  const tabA = await context.newPage();
  await tabA.goto(INDEPENDENT);
  await expect(tabA.getByTestId('connection')).toHaveText('recovery_required');
  await tabA.getByRole('button', { name: 'End session' }).click();
  await tabA.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(tabA.getByTestId('connection')).toHaveText('ready');
  await callConnected(tabA);

  // The calling tab never offers Renew while busy.
  await expect(tabA.getByRole('button', { name: 'Renew' })).toBeDisabled();

  // Tab B does not know of A's call: its Renew is refused by the service (one agent, one call, spec 3.2).
  await tabB.getByRole('button', { name: 'Renew' }).click();
  await expect(tabB.getByTestId('error-code')).toContainText('browser_agent_busy');
  await expect(tabB.getByTestId('error-advice')).toHaveText('A call is still active. Wait until busy is false, or hang up first.');
  await expect(tabA.getByTestId('call-state')).toHaveText('connected');

  await hangUp(tabA);
  await tabA.close();
});
