import type { Page } from '@playwright/test';
import { callConnected, expect, hangUp, logInAndConnect, test, type Simulator } from './fixtures.js';

/**
 * spec 4.9: mute affects outgoing audio only. While muted the page keeps sending RTP (silence), so the
 * simulator's packet count grows and its voiced count stops; after unmute the voiced count grows again.
 * The simulator's own packet count is the test's clock: no sleeps.
 */

async function counts(simulator: Simulator, callId: string) {
  const { media } = await simulator.call(callId);
  return { packets: media?.packetsFromBrowser ?? 0, voiced: media?.voicedPacketsFromBrowser ?? 0 };
}

/** Waits until `n` more packets from the browser reached the simulator (20 ms each). */
async function packetsPass(simulator: Simulator, callId: string, n: number) {
  const from = (await counts(simulator, callId)).packets;
  await expect.poll(async () => (await counts(simulator, callId)).packets).toBeGreaterThan(from + n);
  return counts(simulator, callId);
}

const muteButton = (page: Page) => page.getByRole('button', { name: 'Mute' });

test('muting silences the outgoing audio at the simulator while packets keep flowing; unmute brings it back', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-mute');
  const callId = await callConnected(page);
  await expect.poll(async () => (await counts(simulator, callId)).voiced).toBeGreaterThan(10);
  await expect(muteButton(page)).toHaveAttribute('aria-pressed', 'false');

  await muteButton(page).click();
  await expect(muteButton(page)).toHaveAttribute('aria-pressed', 'true');
  // Packets already on the way when the track was disabled may still be voiced: start counting after them.
  const settled = await packetsPass(simulator, callId, 10);
  const later = await packetsPass(simulator, callId, 50);
  expect(later.voiced).toBe(settled.voiced);
  expect(later.packets).toBeGreaterThan(settled.packets + 50);
  await expect(page.getByTestId('call-state')).toHaveText('connected');

  await muteButton(page).click();
  await expect(muteButton(page)).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(async () => (await counts(simulator, callId)).voiced).toBeGreaterThan(later.voiced + 10);

  await hangUp(page);
});

test('a mute set before the call holds for it: the far end never hears a voiced packet', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-mute-before');
  await muteButton(page).click();
  await expect(muteButton(page)).toHaveAttribute('aria-pressed', 'true');
  const callId = await callConnected(page);
  const after = await packetsPass(simulator, callId, 50);
  expect(after.voiced).toBe(0);

  await muteButton(page).click();
  await expect.poll(async () => (await counts(simulator, callId)).voiced).toBeGreaterThan(10);
  await hangUp(page);
});
