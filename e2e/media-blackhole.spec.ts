import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, strikeNow, test } from './fixtures.js';

/**
 * A call whose media path loses everything for 5 s (the simulator's `media-blackhole`): the page sees the path
 * stop, restarts ICE by a re-INVITE in the same call (`audio` shows `reconnecting`), and the audio flows again
 * once the network is back, on the same call id, with no redial. The simulator counts the restart.
 */

const BLACKHOLE_MS = 5000;

test('a 5 s media blackhole is survived by an ICE restart: same call, audio flowing again', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-media-blackhole');
  // Every audio state the page shows, with when.
  const audio: Array<{ state: string; at: number }> = [];
  await page.exposeFunction('__audio', (state: string) => audio.push({ state, at: Date.now() }));
  await page.evaluate(() => {
    const cell = document.querySelector('[data-testid="audio"]');
    if (cell) new MutationObserver(() => (window as unknown as { __audio(s: string): void }).__audio(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  });
  const callId = await callConnected(page);
  await expect(page.getByTestId('audio')).toHaveText('playing');
  const fromPage = async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0;
  await expect.poll(fromPage).toBeGreaterThan(25);

  await strikeNow(simulator, { fault: 'media-blackhole', ms: BLACKHOLE_MS, callId });
  const networkBackAt = Date.now() + BLACKHOLE_MS;

  await expect(page.getByTestId('audio')).toHaveText('reconnecting', { timeout: BLACKHOLE_MS });
  const during = await fromPage();
  await expect.poll(fromPage, { intervals: [50] }).toBeGreaterThan(during);
  const flowingAgainAfter = Date.now() - networkBackAt;
  await expect(page.getByTestId('audio')).toHaveText('playing');
  expect(audio.map((entry) => entry.state)).toEqual(['connecting', 'playing', 'reconnecting', 'playing']);
  test.info().annotations.push({ type: 'audio back after the network returned (ms)', description: String(flowingAgainAfter) });

  // The same call, never redialled; the page restarted ICE in its dialog.
  const { call, facts } = await simulator.call(callId);
  expect(call).toMatchObject({ id: callId, state: 'connected', busy: true });
  expect(facts.iceRestarts).toBeGreaterThanOrEqual(1);
  // The restart's re-offer lists only the codecs the call agreed (the simulator offered PCMU and
  // telephone-event), not every codec the browser has: a gateway that does not transcode cannot switch there.
  expect(facts.lastReofferFormats).toEqual(['PCMU/8000', 'telephone-event/8000']);
  await expect(page.getByTestId('call-id')).toHaveText(callId);
  const stats = await pageAudioStats(page);
  expect(stats.peerConnections).toBe(1);
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(stats.received + 25);
  await expect(page.getByTestId('error-code')).toHaveCount(0);
  await hangUp(page);
});
