import { expect, logInAndConnect, test } from './fixtures.js';

/**
 * Behind a real SIP proxy the service was seen to give up an INVITE the page still held (it came before the
 * POST /browser-calls answer): CANCEL, then the 202. The page must drop that INVITE, never answer it, and show
 * what the service's read says, not tell the user to reconnect for a call the service withdrew.
 */
test('an INVITE the service withdraws before its 202 is dropped, and the page shows the call as the service ended it', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-withdrawn-invite');
  await simulator.fault({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'withdraw-invite' });
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));

  await page.getByLabel('Number to call').fill('+12025550100');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('call-state')).toHaveText('failed');
  await expect(page.getByTestId('busy')).toHaveText('false');
  await expect(page.getByTestId('call-words')).toContainText('the service withdrew the call before this page answered');
  await expect(page.getByTestId('error-code')).toHaveCount(0);

  const callId = (await page.getByTestId('call-id').textContent()) ?? '';
  const { call, facts } = await simulator.call(callId);
  // The page answered the CANCEL (487) and never the INVITE itself.
  expect(call.endReason).toBe('invite_withdrawn');
  expect(facts).toMatchObject({ browserFinalStatus: 487, browserAnsweredAt: null });
  // SIP.js is never asked to accept the dead INVITE ("Invalid session state Terminated").
  expect(errors.filter((text) => text.includes('Invalid session state'))).toEqual([]);

  // The page takes the next call as usual.
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  await page.getByRole('button', { name: 'Hang up' }).click();
  await expect(page.getByTestId('busy')).toHaveText('false');
});
