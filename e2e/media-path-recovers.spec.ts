import { placeBlackholedCall } from './blackholed-call.js';
import { expect, hangUp, logInAndConnect, pageAudioStats, test } from './fixtures.js';

/**
 * A call whose media never flowed until the network let it through: the same call then plays, `playing` only
 * once audio came (the page's own statistics count it), and the card loses its no-audio-path words.
 */
/** Longer than a call takes to connect; shorter than a browser's first ICE checks take to fail. */
const BLACKHOLE_MS = 10_000;

test('a call whose media path comes late plays on the same call, and only once audio came', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-media-path-recovers');
  const { callId, networkBackAt, audio } = await placeBlackholedCall(page, simulator, BLACKHOLE_MS);
  await expect(page.getByTestId('warnings')).toHaveText('no_audio_path');

  await expect(page.getByTestId('audio')).toHaveText('playing', { timeout: 30_000 });
  await expect(page.getByTestId('call-words')).toHaveText('Connected to +12025550100');
  await expect(page.getByTestId('warnings')).not.toContainText('no_audio_path');
  test.info().annotations.push({ type: 'audio states (ms after the blackhole ended)', description: audio.map(({ state, at }) => `${state} ${at - networkBackAt}`).join(', ') });
  expect(audio.filter((entry) => entry.state === 'playing' && entry.at < networkBackAt)).toEqual([]);
  expect((await pageAudioStats(page)).received).toBeGreaterThan(0);
  await expect(page.getByTestId('call-id')).toHaveText(callId);
  await expect.poll(async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(25);
  await hangUp(page);
});
