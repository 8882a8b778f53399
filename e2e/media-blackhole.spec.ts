import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, strikeNow, test } from './fixtures.js';

/**
 * A call on a poor network (the simulator's `media-impair`: loss and jitter both ways, from its start) whose
 * path then loses everything for 5 s (`media-blackhole`): the page sees the path stop, restarts ICE by a
 * re-INVITE in the same call (`audio` shows `reconnecting`), and the audio flows again once the network is back,
 * on the same call id, with no redial. The simulator counts the restart; the call runs on Opus, whose in-band
 * FEC the restart's offer keeps, and the page tells the loss it meets as it is.
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
  // A poor network under the whole call: 5 % random loss and 60 ms of jitter each way (a delay of 60 ms, give or take 60).
  await strikeNow(simulator, { fault: 'media-impair', callId, impairment: { lossPercent: 5, delayMs: 60, jitterMs: 60 } });
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
  // The restart's re-offer lists only the codecs the call agreed, Opus first (the simulator offered Opus, PCMU and
  // telephone-event on both clocks), not every codec the browser has: a gateway that does not transcode cannot
  // switch there. Opus keeps its in-band FEC (RFC 7587 section 3.3) and stays mono (no `stereo=1`).
  expect(facts.lastReofferFormats?.[0]).toBe('opus/48000/2');
  expect(['opus/48000/2', 'PCMU/8000', 'telephone-event/8000', 'telephone-event/48000']).toEqual(expect.arrayContaining(facts.lastReofferFormats ?? ['none']));
  expect(facts.lastReofferOpus).toMatch(/(^|;)useinbandfec=1(;|$)/);
  expect(facts.lastReofferOpus).not.toMatch(/(^|;)stereo=1/);
  expect((await simulator.call(callId)).media?.codec).toBe('opus');
  await expect(page.getByTestId('call-id')).toHaveText(callId);
  const stats = await pageAudioStats(page);
  expect(stats.peerConnections).toBe(1);
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(stats.received + 25);
  await expect(page.getByTestId('error-code')).toHaveCount(0);
  // The page's own figures tell the poor network and the codec as they are: loss seen, a score below a clean
  // call's, Opus; and no warning that the audio or its path is gone while it flows.
  // A sample comes about once a second, and a random loss may spare one: wait for one that met it.
  const samples = async () =>
    (await page.getByTestId('call-quality').allTextContents()).map((line) => ({
      loss: Number(/loss ([\d.]+) %/.exec(line)?.[1] ?? 0),
      mos: Number(/MOS ([\d.]+)/.exec(line)?.[1] ?? 0),
      opus: /, opus,/i.test(line),
    }));
  await expect.poll(async () => (await samples()).some((sample) => sample.loss > 0 && sample.mos > 0 && sample.mos < 4.4)).toBe(true);
  expect((await samples()).at(-1)?.opus).toBe(true);
  await expect(page.getByTestId('warnings')).not.toContainText(/no_inbound_audio|no_audio_path/);
  await hangUp(page);
});
