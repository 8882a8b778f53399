import type { AddressInfo } from 'node:net';
import { expect, test } from '@voice-browser/simulator/playwright';
import { createApp } from '../server.js';

/**
 * The app end to end: its server on a free port, talking to the simulator the fixture started; a real Chromium
 * logs in, connects, calls a test number that answers, hears it, and hangs up.
 */

let appUrl: string;
let close: () => Promise<void>;

test.beforeAll(async ({ simulator }) => {
  const server = createApp({ voiceBaseUrl: simulator.baseUrl, voiceApiKey: simulator.apiKey }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
test.afterAll(() => close());

test('logs in, calls a number that answers, hears it, and hangs up', async ({ page, simulator }) => {
  const status = page.locator('#status');
  await page.goto(appUrl);
  await page.getByLabel('Your name').fill('Ada');
  await page.getByRole('button', { name: 'Log in' }).click();
  await expect(page.getByText('Logged in as Ada')).toBeVisible();

  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(status).toHaveAttribute('data-connection', 'ready');

  await page.getByLabel('To', { exact: true }).fill('+12025550100');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(status).toHaveAttribute('data-call-state', 'connected', { timeout: 15_000 });
  const callId = (await status.getAttribute('data-call-id')) ?? '';

  // The simulator heard the page's microphone and sent the page its audio.
  await expect.poll(async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(25);
  expect((await simulator.call(callId)).media?.packetsToBrowser).toBeGreaterThan(0);

  await page.getByRole('button', { name: 'Hang up' }).click();
  await expect(status).toHaveAttribute('data-call-state', 'ended');
  await expect(page.getByRole('button', { name: 'Call', exact: true })).toBeEnabled();
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', busy: false });
});

test('shows the far end hanging up', async ({ page, simulator }) => {
  const status = page.locator('#status');
  await page.goto(appUrl);
  await page.getByLabel('Your name').fill('Grace');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(status).toHaveAttribute('data-connection', 'ready');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(status).toHaveAttribute('data-call-state', 'connected', { timeout: 15_000 });

  await simulator.remoteHangup((await status.getAttribute('data-call-id')) ?? '');
  await expect(status).toHaveAttribute('data-call-state', 'ended');
  await expect(status).toHaveText(/ended/);
});
