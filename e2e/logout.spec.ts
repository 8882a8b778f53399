import { callConnected, expect, logInAndConnect, test } from './fixtures.js';

/**
 * spec 4.9: sessions are revoked server-side on logout, and spec 3.2: an expired session's accepted call runs
 * on. Logging out must still end that call: no call outlives the user's logout, and the next session is not
 * refused `browser_agent_busy` because of it.
 */
test("logging out while an expired session's call runs ends the call, and the user's next session is admitted", async ({ page, simulator }) => {
  const sessionId = await logInAndConnect(page, 'e2e-logout-expired');
  const callId = await callConnected(page);
  await simulator.expireSession(sessionId);

  const loggedOut = page.waitForResponse((response) => response.url().endsWith('/auth/logout'));
  await page.getByRole('button', { name: 'Log out' }).click();
  expect((await loggedOut).status()).toBe(200);
  await expect(page.getByLabel('Username')).toBeVisible();

  // The logout answered once a read proved the call over (no waiting here): nothing is left running.
  const { call } = await simulator.call(callId);
  expect(call).toMatchObject({ busy: false, state: 'ended', endReason: 'session_ended' });

  // A fresh page finds nothing to recover and connects: the service admits the user's next session.
  await logInAndConnect(page, 'e2e-logout-expired');
});
