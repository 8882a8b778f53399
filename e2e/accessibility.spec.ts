import { axeViolations, callConnected, expect, hangUp, logInAndConnect, reloadConfirmed, test } from './fixtures.js';

/**
 * axe-core (WCAG 2.1 A and AA rules) finds no violation on the demo's main states: logged out, ready, in a
 * call, and after it, and the state changes are announced in words. A violation is listed with the rule, its
 * impact and the elements it names.
 */

test('the demo passes axe-core logged out, ready, with an error, in a call with the keypad open, after it, and in recovery', async ({ page, browserName }) => {
  // Six audits, each several times longer in Firefox than in Chromium, and longer again on a busy machine.
  test.setTimeout(browserName === 'firefox' ? 360_000 : 180_000);
  await page.goto('/');
  await expect(page.getByLabel('Username')).toBeVisible();
  expect(await axeViolations(page), 'logged out').toEqual([]);

  await logInAndConnect(page, 'e2e-axe');
  expect(await axeViolations(page), 'ready').toEqual([]);
  // A refused call puts its error on the card.
  await page.getByLabel('Number to call').fill('+12025550105');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('error-code')).toContainText('compliance_dnc');
  expect(await axeViolations(page), 'an error shown').toEqual([]);
  await callConnected(page);
  await page.getByRole('button', { name: 'Keypad' }).click();
  // Screen readers hear the state change: one polite live region says it in words.
  await expect(page.getByTestId('call-words')).toHaveText('Connected to +12025550100');
  expect(await axeViolations(page), 'in a call').toEqual([]);
  await hangUp(page);
  await expect(page.getByTestId('call-words')).toHaveText('Ended: you hung up');
  expect(await axeViolations(page), 'after the call').toEqual([]);

  // A reload mid-call: the recovered call with its cleanup controls.
  await callConnected(page);
  await reloadConfirmed(page);
  await expect(page.getByTestId('connection')).toHaveText('recovery_required');
  await expect(page.getByTestId('recovery-words')).toBeVisible();
  expect(await axeViolations(page), 'recovery').toEqual([]);
  // The simulator may end the call once the reload stopped its audio (its media timeout), which a slow audit can
  // outlast: the click hangs up a call still up, and does nothing on the disabled button of one already over.
  await page.getByRole('button', { name: 'Hang up' }).click({ force: true });
  await expect(page.getByTestId('busy')).toHaveText('false');
  await page.getByRole('button', { name: 'End session' }).click();
  await expect(page.getByTestId('connection')).toHaveText('disconnected');
});
