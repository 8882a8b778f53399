import { callConnected, expect, logInAndConnect, pageAudioStats, test } from './fixtures.js';

/** The recipient hangs up (the simulator's remote-hangup): the page shows the end, busy false, and its peer connection closes. */
test('a remote hangup ends the call on the page: ended, busy false, peer connection closed', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-remote-hangup');
  const callId = await callConnected(page);
  await expect.poll(async () => (await pageAudioStats(page)).connectionState).toBe('connected');

  await simulator.remoteHangup(callId);

  await expect(page.getByTestId('call-state')).toHaveText('ended');
  await expect(page.getByTestId('busy')).toHaveText('false');
  await expect(page.getByTestId('call-words')).toHaveText('Ended: the other side hung up');
  await expect.poll(async () => (await pageAudioStats(page)).connectionState).toBe('closed');
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', busy: false, endReason: 'recipient_hangup' });
  // The page is ready for the next call.
  await expect(page.getByTestId('connection')).toHaveText('ready');
  await expect(page.getByRole('button', { name: 'Call', exact: true })).toBeEnabled();
});
