import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, test } from './fixtures.js';

/**
 * A call whose media is blackholed from its very start (the simulator's `media-blackhole`, armed on the request
 * that places it), as in a browser that pairs with none of the service's ICE candidates: the call reads
 * `connected`, but the page never shows `playing` while its ICE has not connected; the card says the audio path
 * is missing (`no_audio_path`) and blames nothing else, the keypad it offers works (a digit goes by SIP INFO in
 * the dialog), and once the network lets the media through, the audio plays on the same call.
 */

/** Longer than a call takes to connect and a digit to wait for the path; shorter than a browser's first ICE checks take to fail. */
const BLACKHOLE_MS = 10_000;

test('a call whose media never flowed shows no audio path, not playing, keeps its keypad, and plays once the media flows', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-media-never-flows');
  // Every audio state the page shows, with when.
  const audio: Array<{ state: string; at: number }> = [];
  await page.exposeFunction('__audio', (state: string) => audio.push({ state, at: Date.now() }));
  await page.evaluate(() => {
    const cell = document.querySelector('[data-testid="audio"]');
    if (cell) new MutationObserver(() => (window as unknown as { __audio(s: string): void }).__audio(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  });
  // The blackhole strikes once the call's request ran: its offer is made and its INVITE sent, no ICE check has gone.
  await simulator.fault({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'media-blackhole', ms: BLACKHOLE_MS });
  const placedAt = Date.now();
  const callId = await callConnected(page);

  // The keypad the card offers takes a digit at once; with no media path it goes by SIP INFO in the dialog.
  await page.getByRole('button', { name: 'Keypad' }).click();
  await page.getByRole('group', { name: 'Keypad' }).getByRole('button', { name: 'Dial 5' }).click();

  await expect(page.getByTestId('warnings')).toHaveText('no_audio_path');
  await expect(page.getByTestId('audio')).toHaveText(/^(connecting|reconnecting)$/);
  await expect(page.getByTestId('call-words')).toHaveText('Connected to +12025550100; no audio yet: the audio path has not connected');
  await expect(page.getByTestId('call-warnings')).toContainText('(ICE) has not connected');

  await expect(page.getByTestId('digits-sent')).toHaveText('5');
  const digits = async () => (await simulator.call(callId)).facts.dtmf.map(({ digit, method }) => `${digit}:${method}`);
  await expect.poll(digits).toEqual(['5:sip-info']);
  await expect(page.getByTestId('error-code')).toHaveCount(0);

  // The network lets the media through: the same call plays, and the card's words lose their warning.
  await expect(page.getByTestId('audio')).toHaveText('playing', { timeout: 30_000 });
  await expect(page.getByTestId('call-words')).toHaveText('Connected to +12025550100');
  await expect(page.getByTestId('warnings')).not.toContainText('no_audio_path');
  const networkBackAt = placedAt + BLACKHOLE_MS;
  test.info().annotations.push({ type: 'audio states (ms after the blackhole ended)', description: audio.map(({ state, at }) => `${state} ${at - networkBackAt}`).join(', ') });
  expect(audio.filter((entry) => entry.state === 'playing' && entry.at < networkBackAt)).toEqual([]);
  // `playing` is what the page heard: its own statistics count the audio that came.
  expect((await pageAudioStats(page)).received).toBeGreaterThan(0);
  await expect(page.getByTestId('call-id')).toHaveText(callId);
  // Firefox's audio toward the simulator's werift does not resume after a DTLS handshake the blackhole held back
  // (the simulator counts none, while the page hears the tone): the simulator's side, so only Chromium's is counted.
  if (test.info().project.name === 'chromium') await expect.poll(async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(25);
  await hangUp(page);
});
