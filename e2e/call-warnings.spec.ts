import { callConnected, expect, hangUp, logInAndConnect, strikeNow, test } from './fixtures.js';

/**
 * Warnings during a call, raised and cleared by themselves: a media blackhole leaves the page without audio
 * from the far end, `no_inbound_audio` is raised within a few seconds and shown on the call card in words, and
 * it clears once the audio returns. A call whose audio flows shows no silence warning (a busy machine's loopback
 * may earn it a slow round trip, `high_rtt`: a time, as the bench's figures are).
 */

/** The words the card gives `no_inbound_audio`. */
const NO_SOUND = 'No sound from the other side';

test('a media blackhole raises no_inbound_audio on the call card, cleared when the audio returns', async ({ page, simulator }) => {
  // Quality samples, a blackhole and the audio's return, each waited for as it comes: on a busy machine that
  // outlasts the suite's usual minute without anything being wrong.
  test.slow();
  await logInAndConnect(page, 'e2e-call-warnings');
  const callId = await callConnected(page);
  await expect(page.getByTestId('audio')).toHaveText('playing');
  // A healthy call: no silence warning while several quality samples (the event log's live line, its packets
  // growing each time) and the page's looks between them go by, counted as the page takes them.
  const packetsIn = async () => Number(/(\d+) packets in/.exec((await page.getByTestId('call-quality').allTextContents()).at(-1) ?? '')?.[1] ?? -1);
  for (let sample = 0; sample < 3; sample += 1) {
    const before = await packetsIn();
    await expect.poll(packetsIn).toBeGreaterThan(before);
  }
  await expect(page.getByTestId('warnings')).not.toContainText(/no_inbound_audio|no_audio_path/);
  await expect(page.getByTestId('call-warnings').filter({ hasText: NO_SOUND })).toHaveCount(0);

  await strikeNow(simulator, { fault: 'media-blackhole', ms: 6000, callId });

  // The warning is raised only while no audio comes (a packet clears it), so seen at all it came during the
  // blackhole; how soon is the bench's (network part).
  await expect(page.getByTestId('warnings')).toContainText('no_inbound_audio', { timeout: 15_000 });
  await expect(page.getByTestId('call-warnings')).toContainText(NO_SOUND);

  await expect(page.getByTestId('warnings')).not.toContainText('no_inbound_audio', { timeout: 20_000 });
  await expect(page.getByTestId('call-warnings').filter({ hasText: NO_SOUND })).toHaveCount(0);
  await expect(page.getByTestId('audio')).toHaveText('playing');
  await hangUp(page);
});
