import type { Page } from '@playwright/test';
import { callConnected, expect, hangUp, logIn, screenshot, test } from './fixtures.js';

/**
 * The demo at a phone's 360 px: nothing scrolls sideways, it is driven by the keyboard alone, and the live
 * diagrams and event log follow a call. Screenshots of the main states go to SCREENSHOTS_DIR (fixtures.ts).
 */
test.use({ viewport: { width: 360, height: 740 } });

async function noSidewaysScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
}

/** Presses Tab until the focused element is the button named `name`, then Enter. */
async function tabToAndPress(page: Page, name: string) {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => (document.activeElement instanceof HTMLButtonElement ? (document.activeElement.textContent ?? '').trim() : ''));
    if (focused === name) return page.keyboard.press('Enter');
  }
  throw new Error(`no button named ${name} reached by Tab`);
}

test('at 360 px the page works by keyboard, the diagrams follow the call, and nothing scrolls sideways', async ({ page }) => {
  await page.goto('/');
  await screenshot(page, '01-login');
  await noSidewaysScroll(page);
  await logIn(page, 'e2e-layout');

  await expect(page.getByRole('button', { name: 'Connect', exact: true })).toBeEnabled();
  await tabToAndPress(page, 'Connect');
  await expect(page.getByTestId('connection')).toHaveText('ready');
  const connection = page.getByRole('figure', { name: 'Connection states' });
  await expect(connection.locator('[aria-current="step"]')).toHaveText(/^ready/);
  await expect(connection.locator('.path')).toHaveText('Path: disconnected → connecting → ready');
  await expect(page.getByRole('region', { name: 'Event log' })).toContainText('registered');
  await screenshot(page, '02-ready');
  await noSidewaysScroll(page);

  await callConnected(page);
  const call = page.getByRole('figure', { name: 'Call states' });
  await expect(call.locator('[aria-current="step"]')).toHaveText(/^connected/);
  // The path is what the reads proved: a recipient that answers at once may skip dialing_recipient between two reads.
  await expect(call.locator('.path')).toHaveText(/^Path: waiting_agent → (dialing_recipient → )?connected$/);
  await expect(page.getByRole('region', { name: 'Event log' })).toContainText('media_connected');
  // The call timer counts from the answer the service reported.
  await expect(page.getByTestId('call-time')).toHaveText(/^0:0[1-9]$/);
  // The first quality sample comes 2 s into the media; the screenshot shows it.
  await expect(page.getByTestId('call-quality')).toContainText('packets in');
  await screenshot(page, '03-connected');
  await noSidewaysScroll(page);

  await hangUp(page);
  await expect(call.locator('[aria-current="step"]')).toHaveText(/^ended/);
  await expect(call.locator('.path')).toHaveText(/→ connected → (ending → )?ended$/);
  await screenshot(page, '04-ended');
  await noSidewaysScroll(page);
});
