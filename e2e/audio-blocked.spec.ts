import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, screenshot, test } from './fixtures.js';

/**
 * spec 4.9, 7: when the browser refuses to play the call audio (autoplay policy), the page says
 * audio_playback_blocked in words with a Resume audio button, and a click on it plays the call.
 * The suite's Chromium allows autoplay, so the first play() is refused here as the policy would refuse it.
 */
test('blocked call audio shows audio_playback_blocked and Resume audio plays it', async ({ page }) => {
  await page.addInitScript(() => {
    const play = HTMLMediaElement.prototype.play;
    let refused = false;
    HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
      if (refused) return play.call(this);
      refused = true;
      return Promise.reject(new DOMException("play() failed because the user didn't interact with the document first.", 'NotAllowedError'));
    };
  });
  await logInAndConnect(page, 'e2e-audio-blocked');
  await callConnected(page);

  await expect(page.getByTestId('audio')).toHaveText('blocked');
  await expect(page.getByTestId('error-code')).toContainText('audio_playback_blocked');
  await expect(page.getByTestId('error-advice')).toHaveText('The browser blocked the call audio. Press Resume audio to hear the call.');

  await screenshot(page, '07-audio-blocked');
  await page.getByRole('button', { name: 'Resume audio' }).click();
  await expect(page.getByTestId('audio')).toHaveText('playing');
  await expect(page.getByRole('button', { name: 'Resume audio' })).toHaveCount(0);
  await expect(page.getByTestId('error-code')).toHaveCount(0);
  const received = (await pageAudioStats(page)).received;
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(received + 20);
  await hangUp(page);
});
