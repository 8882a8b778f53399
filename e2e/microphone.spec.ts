import { expect, logInAndConnect, test } from './fixtures.js';

/**
 * spec 4.9, 7: a refused microphone is told apart from other failures, and the call it could not answer
 * ends at the service (the page declines the INVITE) without ringing on.
 */
test('a refused microphone shows microphone_permission_denied and the call ends, busy false', async ({ page, simulator }) => {
  // The user clicks "Block" on the permission prompt: getUserMedia rejects with NotAllowedError.
  await page.addInitScript(() => {
    navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
  });
  await logInAndConnect(page, 'e2e-microphone');

  await page.getByLabel('Number to call').fill('+12025550100');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('error-code')).toContainText('microphone_permission_denied');
  await expect(page.getByTestId('busy')).toHaveText('false');
  const callId = (await page.getByTestId('call-id').textContent()) ?? '';
  const { call } = await simulator.call(callId);
  expect(call).toMatchObject({ state: 'failed', busy: false });
  // The page stays ready for the next call once the permission is given.
  await expect(page.getByTestId('connection')).toHaveText('ready');
});
