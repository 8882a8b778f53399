import { placeBlackholedCall } from './blackholed-call.js';
import { expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * A call whose media never flowed: it reads `connected`, but the page never shows `playing` while its ICE has not
 * connected; the card says the audio path is missing (`no_audio_path`) and blames nothing else, and the keypad it
 * offers works (a digit goes by SIP INFO in the dialog). The path coming back has a spec of its own.
 */
/** Longer than every check below takes on a busy machine, so the path cannot come back while they run. */
const BLACKHOLE_MS = 30_000;

test('a call whose media never flowed shows no audio path, not playing, and keeps its keypad', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-media-never-flows');
  const { callId, networkBackAt, audio } = await placeBlackholedCall(page, simulator, BLACKHOLE_MS);

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
  // Nothing said `playing` while the blackhole held.
  expect(audio.filter((entry) => entry.state === 'playing' && entry.at < networkBackAt)).toEqual([]);
  await hangUp(page);
});
