import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, test } from './fixtures.js';

/**
 * A REFER in the call (the far end asks the page to transfer it, RFC 3515) is declined: the page answers 603 and
 * dials nobody itself, and the call goes on with its audio. The page only ever answers the calls its server
 * places; the shipped bundle's trimmed Referral (the build's SIP.js trim) carries exactly that decline.
 */
test('a REFER from the far end is declined 603, and the call goes on with its audio', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-refer');
  const callId = await callConnected(page);
  expect(await simulator.refer(callId)).toBe(603);

  const before = await pageAudioStats(page);
  expect(before.peerConnections).toBe(1);
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(before.received + 25);
  expect((await simulator.call(callId)).call).toMatchObject({ id: callId, state: 'connected', busy: true });
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  await hangUp(page);
});
