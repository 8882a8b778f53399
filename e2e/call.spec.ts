import { expect, hangUp, logInAndConnect, pageAudioStats, test } from './fixtures.js';

/**
 * The walking skeleton, end to end: log in, connect, call the answer-at-once number from the picked caller id,
 * hear and be heard, hang up, and see the call end with busy false.
 */
test('a browser call to +12025550100 connects with audio both ways and ends cleanly', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-call');

  await page.getByLabel('From number').selectOption('+12025550198');
  await page.getByLabel('Number to call').fill('+12025550100');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('busy')).toHaveText('true');
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  const callId = (await page.getByTestId('call-id').textContent()) ?? '';
  expect(callId).toMatch(/^bc_/);
  expect((await simulator.call(callId)).call).toMatchObject({ from: '+12025550198', to: '+12025550100' });

  // Audio flows both ways: the simulator counts RTP from the browser, the browser counts RTP from it.
  await expect.poll(async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(25);
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(25);
  const before = await simulator.call(callId);
  const pageBefore = await pageAudioStats(page);
  // Still flowing each way, not only at the start; at what rate is the bench's.
  await expect.poll(async () => ((await simulator.call(callId)).media?.packetsFromBrowser ?? 0) - (before.media?.packetsFromBrowser ?? 0)).toBeGreaterThan(20);
  await expect.poll(async () => (await pageAudioStats(page)).received - pageBefore.received).toBeGreaterThan(20);
  const after = await simulator.call(callId);
  expect((await pageAudioStats(page)).connectionState).toBe('connected');
  expect(after.facts.mediaConnectedAt).not.toBeNull();

  await hangUp(page);
  await expect(page.getByTestId('call-state')).toHaveText('ended');
  const ended = await simulator.call(callId);
  expect(ended.call).toMatchObject({ state: 'ended', busy: false, endReason: 'api_hangup' });
  // The browser's peer connection is closed: no microphone or socket left behind by the call.
  await expect.poll(async () => (await pageAudioStats(page)).connectionState).toBe('closed');
});
