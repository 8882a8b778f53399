import { expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * spec 4.7, 7: a lost createCall answer leaves call_outcome_unknown with the attempt kept; retrying the same
 * attempt returns the original call, and the service never sees a second one.
 */
test('a lost createCall answer, then a retry with the same key, makes exactly one call', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-lost-response');

  await simulator.fault({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'drop-response' });

  await page.getByLabel('Number to call').fill('+12025550100');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('error-code')).toContainText('call_outcome_unknown');
  await expect(page.getByTestId('busy')).toHaveText('true');
  await expect(page.getByTestId('attempt')).toHaveText('outcome_unknown');
  await expect(page.getByTestId('call-state')).toHaveText('—');

  await page.getByRole('button', { name: 'Retry call' }).click();
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  const callId = (await page.getByTestId('call-id').textContent()) ?? '';
  const { call } = await simulator.call(callId);
  expect((await simulator.callsOfSession(call.sessionId)).map((c) => c.id)).toEqual([callId]);

  await hangUp(page);
});
