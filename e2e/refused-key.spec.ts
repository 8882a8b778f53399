import { afterPageTimers, callConnected, expect, hangUp, logInAndConnect, SIM_API_KEY, test } from './fixtures.js';

/**
 * Spec 5.3, 5.4: when the service refuses the server's key, no call was made. The proxy answers
 * `403 browser_voice_unavailable`, and the page shows that as a definite no: `busy` false at once, the code in
 * words, and no reconciling reads of a call that cannot exist. The simulator's control API changes the
 * account of the suite's own key (`PATCH /__sim/keys/:key`) for the length of the test.
 */

async function setAccount(simUrl: string, account: { suspended?: boolean; voiceEntitled?: boolean }): Promise<void> {
  const response = await fetch(`${simUrl}/__sim/keys/${SIM_API_KEY}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ account }),
  });
  expect(response.status).toBe(200);
}

for (const [refusal, account] of [
  ['a suspended account', { suspended: true }],
  ['an account without voice', { voiceEntitled: false }],
] as const) {
  test(`a call refused for ${refusal} leaves the page idle with browser_voice_unavailable, reading nothing`, async ({ page, simulator }) => {
    const sessionId = await logInAndConnect(page, `e2e-refused-${account.suspended ? 'suspended' : 'entitlement'}`);
    const reads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' && request.url().includes('/voice/browser-')) reads.push(request.url());
    });
    await setAccount(simulator.url, account);
    try {
      await page.getByLabel('Number to call').fill('+12025550100');
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await expect(page.getByTestId('error-code')).toContainText('browser_voice_unavailable');
      await expect(page.getByTestId('busy')).toHaveText('false');
      await expect(page.getByTestId('call-state')).toHaveText('—');
      await expect(page.getByTestId('attempt')).toHaveText('—');
      await expect(page.getByRole('button', { name: 'Call', exact: true })).toBeEnabled();
      // A definite no: nothing to reconcile, so the page reads nothing in the seconds after (on its own clock,
      // so that a read it had scheduled would have gone out however late a loaded machine runs its timers).
      await afterPageTimers(page, 2500);
      expect(reads).toEqual([]);
    } finally {
      await setAccount(simulator.url, { suspended: false, voiceEntitled: true });
    }
    expect(await simulator.callsOfSession(sessionId)).toEqual([]);

    // Reinstated, the same page calls as before.
    await callConnected(page);
    await hangUp(page);
  });
}
