import { callConnected, expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * The microphone goes away mid-call (unplugged: its track ends by itself). The helper swaps in the system's
 * default device on the same call, keeps the mute wish, says so in onTiming, and the far end hears the new
 * microphone; with no device left, microphone_unavailable shows while the call goes on.
 */

/**
 * Run in a Firefox page before its scripts. Firefox never hands an `ended` dispatched by script to a track's
 * listeners, so there the call's first microphone is one that really stops: a tone played in a loop in the page and
 * captured until it ends (`mozCaptureStreamUntilEnded`). `__stopMicrophone()` plays it to its end, and its track
 * ends as an unplugged device's does. Every later getUserMedia is the browser's own (the fake device).
 */
function stoppableMicrophone(): void {
  const devices = navigator.mediaDevices;
  const browserMicrophone = devices.getUserMedia.bind(devices);
  let first = true;
  devices.getUserMedia = async (constraints) => {
    if (!first || !constraints?.audio) return browserMicrophone(constraints);
    first = false;
    // The browser's own microphone stays open beside it: Firefox offers its loopback ICE candidate only to a page
    // that captures a device (media.navigator.permission.fake), and a captured tone is not one.
    (window as unknown as { __deviceHeld: MediaStream }).__deviceHeld = await browserMicrophone(constraints);
    const rate = 8000;
    const samples = rate * 30;
    const wav = new DataView(new ArrayBuffer(44 + samples * 2));
    const text = (at: number, value: string) => [...value].forEach((char, i) => wav.setUint8(at + i, char.charCodeAt(0)));
    text(0, 'RIFF');
    wav.setUint32(4, 36 + samples * 2, true);
    text(8, 'WAVEfmt ');
    // The format chunk: 16 bytes of PCM, one channel, `rate` samples a second of 2 bytes (16 bits) each.
    wav.setUint32(16, 16, true);
    wav.setUint16(20, 1, true);
    wav.setUint16(22, 1, true);
    wav.setUint32(24, rate, true);
    wav.setUint32(28, rate * 2, true);
    wav.setUint16(32, 2, true);
    wav.setUint16(34, 16, true);
    text(36, 'data');
    wav.setUint32(40, samples * 2, true);
    for (let i = 0; i < samples; i++) wav.setInt16(44 + i * 2, Math.sin((2 * Math.PI * 440 * i) / rate) * 8000, true);
    const tone = new Audio(URL.createObjectURL(new Blob([wav.buffer], { type: 'audio/wav' })));
    // It plays until the test unplugs it, however long a busy machine takes to get there.
    tone.loop = true;
    await tone.play();
    // Playing its last moments ends it (a seek to the very end would leave it paused, not ended).
    (window as unknown as { __stopMicrophone(): void }).__stopMicrophone = () => {
      tone.loop = false;
      tone.currentTime = tone.duration - 0.2;
    };
    return (tone as HTMLAudioElement & { mozCaptureStreamUntilEnded(): MediaStream }).mozCaptureStreamUntilEnded();
  };
}

test.beforeEach(async ({ page, browserName }) => {
  if (browserName === 'firefox') await page.addInitScript(stoppableMicrophone);
});

/**
 * Ends the call's microphone track as the browser does when the device is unplugged: it ends by itself ('ended',
 * not stop()). In Chromium an `ended` event on the track stands for it; in Firefox the microphone really stops.
 */
async function unplug(page: import('@playwright/test').Page): Promise<string> {
  return page.evaluate(() => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const track = pcs[pcs.length - 1]?.getSenders().find((sender) => sender.track?.kind === 'audio')?.track;
    if (!track) throw new Error('no microphone track');
    const stop = (window as unknown as { __stopMicrophone?(): void }).__stopMicrophone;
    if (stop) stop();
    else track.dispatchEvent(new Event('ended'));
    return track.id;
  });
}

const senderTrack = (page: import('@playwright/test').Page) =>
  page.evaluate(() => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const track = pcs[pcs.length - 1]?.getSenders().find((sender) => sender.track?.kind === 'audio')?.track;
    return track ? { id: track.id, enabled: track.enabled } : null;
  });

test('a microphone unplugged mid-call is replaced by the default one, muted as it was, on the same call', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-microphone-swap');
  const callId = await callConnected(page);
  const mute = page.getByRole('button', { name: 'Mute', exact: true });
  await mute.click();
  await expect(mute).toHaveAttribute('aria-pressed', 'true');
  const lostId = await unplug(page);

  await expect(page.getByRole('region', { name: 'Event log' })).toContainText('microphone_replaced');
  const replaced = await senderTrack(page);
  expect(replaced?.id).not.toBe(lostId);
  expect(replaced?.enabled).toBe(false);

  // Unmuted, the far end hears the new microphone on the same call.
  await mute.click();
  const voiced = async () => (await simulator.call(callId)).media?.voicedPacketsFromBrowser ?? 0;
  const before = await voiced();
  await expect.poll(voiced).toBeGreaterThan(before + 25);
  expect((await simulator.call(callId)).call).toMatchObject({ id: callId, state: 'connected' });
  await hangUp(page);
});

test('with no microphone left, microphone_unavailable shows and the call goes on', async ({ page }) => {
  await logInAndConnect(page, 'e2e-microphone-gone');
  await callConnected(page);
  await page.evaluate(() => {
    navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Requested device not found', 'NotFoundError'));
  });
  await unplug(page);
  await expect(page.getByTestId('error-code')).toContainText('microphone_unavailable');
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  await expect(page.getByTestId('busy')).toHaveText('true');
  await hangUp(page);
});
