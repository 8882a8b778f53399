import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { callConnected, expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * axe-core (WCAG 2.1 A and AA rules) finds no violation on the demo's main states: logged out, ready, in a
 * call, and after it, and the state changes are announced in words. A violation is listed with the rule, its
 * impact and the elements it names.
 */

async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

test('the demo passes axe-core logged out, ready, in a call and after it', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByLabel('Username')).toBeVisible();
  expect(await violations(page), 'logged out').toEqual([]);

  await logInAndConnect(page, 'e2e-axe');
  expect(await violations(page), 'ready').toEqual([]);
  await callConnected(page);
  // Screen readers hear the state change: one polite live region says it in words.
  await expect(page.getByTestId('announcement')).toHaveText('Connected to +12025550100');
  expect(await violations(page), 'in a call').toEqual([]);
  await hangUp(page);
  await expect(page.getByTestId('announcement')).toHaveText('Ended: you hung up');
  expect(await violations(page), 'after the call').toEqual([]);
});
