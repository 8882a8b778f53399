import { callConnected, expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * The event log's call quality line: the helper's `call_quality` samples (WebRTC statistics every 2 s) shown
 * in words, one live line per call, growing while the audio flows.
 */
test('the event log shows the call quality in words, live while the call runs', async ({ page }) => {
  await logInAndConnect(page, 'e2e-quality');
  const callId = await callConnected(page);

  const line = page.getByTestId('call-quality');
  const packetsIn = async () => Number(/(\d+) packets in/.exec((await line.textContent()) ?? '')?.[1] ?? -1);
  await expect(line).toContainText(`call_quality`);
  await expect(line).toContainText(`(${callId})`);
  // Every figure in words; what they come to on loopback (a busy machine's jitter lowers the score) is the bench's.
  // The codec is the one the call runs on: Opus, which the simulator offers first, as hosted services do.
  await expect(line).toContainText(/rtt \d+(\.\d)? ms, jitter \d+(\.\d)? ms, loss \d+(\.\d)? %, MOS \d\.\d, opus, \d+ packets in, \d+ out/);
  const first = await packetsIn();
  expect(first).toBeGreaterThan(0);
  // The next sample replaces the line (one per call), with more packets.
  await expect.poll(packetsIn).toBeGreaterThan(first);
  await expect(line).toHaveCount(1);

  await hangUp(page);
  await expect(page.getByTestId('call-state')).toHaveText('ended');
  // The last sample stays in the log after the call.
  await expect(line).toContainText(`(${callId})`);
});
