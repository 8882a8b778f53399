import { callConnected, expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * The microphone goes away mid-call (unplugged: its track ends by itself). The helper swaps in the system's
 * default device on the same call, keeps the mute wish, says so in onTiming, and the far end hears the new
 * microphone; with no device left, microphone_unavailable shows while the call goes on.
 */

/** Ends the call's microphone track as the browser does when the device is unplugged ('ended', not stop()). */
async function unplug(page: import('@playwright/test').Page): Promise<string> {
  return page.evaluate(() => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const track = pcs[pcs.length - 1]?.getSenders().find((sender) => sender.track?.kind === 'audio')?.track;
    if (!track) throw new Error('no microphone track');
    track.dispatchEvent(new Event('ended'));
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
