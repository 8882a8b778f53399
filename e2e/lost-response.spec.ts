import type { Page } from '@playwright/test';
import { expect, hangUp, logInAndConnect, test, type Simulator } from './fixtures.js';

/**
 * spec 4.7, 7: a lost createCall answer leaves call_outcome_unknown with the attempt kept. The page then reads the
 * user's session until it names the call (never dialling again), and a retry of the same attempt returns the
 * original call: either way the service sees exactly one call.
 */

/** Calls with createCall's answer lost, and waits until the page shows the outcome as unknown, the attempt kept. */
async function callWithLostAnswer(page: Page, simulator: Simulator): Promise<void> {
  await simulator.fault({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'drop-response' });
  await page.getByLabel('Number to call').fill('+12025550100');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('error-code')).toContainText('call_outcome_unknown');
  await expect(page.getByTestId('busy')).toHaveText('true');
}

/** The page shows `connected`, and that call is the only one the session ever made. */
async function connectedOnce(page: Page, simulator: Simulator): Promise<void> {
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  const callId = (await page.getByTestId('call-id').textContent()) ?? '';
  const { call } = await simulator.call(callId);
  expect((await simulator.callsOfSession(call.sessionId)).map((c) => c.id)).toEqual([callId]);
}

test('a lost createCall answer, then a retry with the same key, makes exactly one call', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-lost-response');
  // The page's reads of its session would find the call by themselves (the next test). Three held back 9 s each
  // (under the proxy's 10 s upstream limit) leave the retry to name it, however long the browser takes to show
  // the outcome.
  await simulator.fault({ method: 'GET', path: '/api/v1/voice/browser-sessions', fault: 'delay', delayMs: 9000, count: 3 });
  await callWithLostAnswer(page, simulator);
  await expect(page.getByTestId('attempt')).toHaveText('outcome_unknown');
  await expect(page.getByTestId('call-state')).toHaveText('—');

  await page.getByRole('button', { name: 'Retry call' }).click();
  await connectedOnce(page, simulator);
  await simulator.clearFaults();
  await hangUp(page);
});

test('a lost createCall answer is reconciled by reads: the call the service made connects, and nothing dials again', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-lost-response-reads');
  await callWithLostAnswer(page, simulator);
  await connectedOnce(page, simulator);
  await hangUp(page);
});
