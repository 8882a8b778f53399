import { callConnected, expect, hangUp, logInAndConnect, test } from './fixtures.js';

/** A normal visit leaves the browser's console clean: no failed request, no error, logged out or in a call. */
test('a logged-out load, a log-in and a call log no console error', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));

  await page.goto('/');
  await expect(page.getByLabel('Username')).toBeVisible();
  expect(errors, 'while logged out').toEqual([]);

  await logInAndConnect(page, 'console-clean');
  await callConnected(page);
  await hangUp(page);
  expect(errors, 'through a call').toEqual([]);
});
