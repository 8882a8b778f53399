import type { Page } from '@playwright/test';
import { startApp, type RunningApp } from '../scripts/start-app.js';
import { expect, logInAndConnect, test } from './fixtures.js';

/**
 * The key's budget as a user meets it: on the default quota (100 requests a minute, spec 8) the key keeps one
 * call read, so while one user is in a call the proxy refuses a second user's call at once, before it reaches
 * the service, and the page says why in the proxy's words (how many calls the key serves). The spec runs an
 * app of its own, on the spec's default quota, set here (npm start's demo key has a larger one).
 */

let app: RunningApp;
test.beforeAll(async () => {
  // Past the app's own start-up limit (a loaded machine compiles it slowly), so that limit is the error a slow start reports.
  test.setTimeout(120_000);
  app = await startApp({ SIM_QUOTA_PER_MINUTE: '100', SIM_QUOTA_PER_HOUR: '10000' });
});
test.afterAll(async () => {
  await app?.stop();
});

async function readyUser(page: Page, username: string) {
  await logInAndConnect(page, username, `${app.demo}/`);
}

test("a second user's call on a key that serves one is refused at once, in the proxy's words, and goes through once the first ends", async ({ page, browser }) => {
  // Two users' pages and two calls: past the suite's usual minute in Firefox on a loaded machine.
  test.setTimeout(180_000);
  await readyUser(page, 'budget-first');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('call-state')).toHaveText('connected');

  // Another user: a context of its own, with its own login cookie.
  const other = await browser.newContext({ permissions: ['microphone'] });
  const second = await other.newPage();
  await readyUser(second, 'budget-second');
  await second.getByRole('button', { name: 'Call', exact: true }).click();
  const card = second.getByTestId('call-card');
  await expect(card.getByTestId('error-code')).toContainText("concurrency_limit: The voice key's quota (100 requests a minute) serves 1 call at once, and 1 is in progress");
  await expect(card.getByTestId('error-advice')).toHaveText('The account has too many active calls. Try again when one ends.');
  await expect(second.getByTestId('busy')).toHaveText('false');
  await expect(second.getByTestId('call-id')).toHaveText('—');

  await page.getByRole('button', { name: 'Hang up' }).click();
  await expect(page.getByTestId('busy')).toHaveText('false');
  await second.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(second.getByTestId('call-state')).toHaveText('connected');
  // The call that went through cleared the refusal.
  await expect(card.getByTestId('error-code')).toHaveCount(0);
  await second.getByRole('button', { name: 'Hang up' }).click();
  await expect(second.getByTestId('busy')).toHaveText('false');
  await other.close();
});
