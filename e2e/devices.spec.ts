import { callConnected, expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * spec 4.9: `audioDevices` are fixed per helper, so the demo applies a picked microphone and speaker at the
 * next Connect; the call then captures from that microphone and plays on that speaker (setSinkId). The lists
 * are complete once the page has had the microphone (Firefox lists no device id and no output before, and the
 * demo shows no speaker picker while `listAudioDevices().canChooseSpeaker` is false), so the picks follow a first
 * call.
 */
test('the picked microphone and speaker apply at the next Connect and are the ones the call uses', async ({ page, browserName }) => {
  await logInAndConnect(page, 'e2e-devices');
  const microphone = page.getByLabel('Microphone');
  const speaker = page.getByLabel('Speaker');
  // Before the microphone was had, Firefox lists no output, so no speaker can be chosen yet: no picker.
  if (browserName === 'firefox') await expect(speaker).toHaveCount(0);
  await expect(microphone).toBeVisible();
  await callConnected(page);
  await hangUp(page);

  // Beside "System default", the fake devices: Chromium's numbered ones of each kind, Firefox's one of each.
  await expect.poll(async () => (await microphone.locator('option').count())).toBeGreaterThan(1);
  await expect.poll(async () => (await speaker.locator('option').count())).toBeGreaterThan(1);
  const micId = await microphone.locator('option').last().getAttribute('value');
  const speakerId = await speaker.locator('option').last().getAttribute('value');
  await microphone.selectOption(micId ?? '');
  await speaker.selectOption(speakerId ?? '');
  await expect(page.getByTestId('devices-pending')).toBeVisible();

  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
  await expect(page.getByTestId('connection')).toHaveText('disconnected');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByTestId('connection')).toHaveText('ready');
  await expect(page.getByTestId('devices-pending')).toHaveCount(0);
  await callConnected(page);

  const used = await page.evaluate(() => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const track = pcs[pcs.length - 1]?.getSenders().find((s) => s.track?.kind === 'audio')?.track;
    const audio = document.querySelector('audio') as (HTMLAudioElement & { sinkId?: string }) | null;
    return JSON.stringify({ microphone: track?.getSettings().deviceId, speaker: audio?.sinkId });
  });
  expect(JSON.parse(used)).toEqual({ microphone: micId, speaker: speakerId });
  await hangUp(page);
});
