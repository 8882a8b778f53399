import { CHROMIUM_LAUNCH } from './browsers.js';
import { callConnected, expect, hangUp, INDEPENDENT, logInAndConnect, test } from './fixtures.js';

/**
 * A page left for another and restored from the back/forward cache (Playwright turns the cache off by
 * default; this file turns it back on): an idle helper closes its SIP socket on the way in (Chromium would
 * close it too), so no dead socket is ever shown as `ready`; restored, it shows `reconnecting`, registers
 * again, is `ready`, and takes calls. A restore fires no `load`, so the navigation back waits for its commit.
 * The page's tab is a phone of its own: Chromium never keeps a page that asked for a Web Lock, which shared
 * tabs do, in the cache (they load again, and recover() or the next leader picks up).
 */

test.use({ launchOptions: { ...CHROMIUM_LAUNCH, ignoreDefaultArgs: ['--disable-back-forward-cache'] } });

test('a page restored from the back/forward cache reconnects, then calls as before', async ({ page }) => {
  await page.addInitScript(() => {
    const w = window as unknown as { __restored: number; __states: string[] };
    w.__restored = 0;
    w.__states = [];
    addEventListener('pageshow', (event) => {
      if (event.persisted) w.__restored++;
    });
  });
  await logInAndConnect(page, 'e2e-bfcache', INDEPENDENT);
  // Every connection state the page shows from here, kept in the page (which the cache keeps as it was).
  await page.evaluate(() => {
    const cell = document.querySelector('[data-testid="connection"]');
    const states = (window as unknown as { __states: string[] }).__states;
    if (cell) new MutationObserver(() => states.push(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  });

  await page.goto('/auth/me');
  await page.goBack({ waitUntil: 'commit' });
  await page.waitForFunction(() => document.readyState === 'complete');
  // Restored from the cache, not loaded again (a fresh load would start from recover()).
  expect(await page.evaluate(() => (window as unknown as { __restored: number }).__restored)).toBe(1);
  await expect(page.getByTestId('connection')).toHaveText('ready');
  expect(await page.evaluate(() => (window as unknown as { __states: string[] }).__states)).toEqual(['reconnecting', 'ready']);

  await callConnected(page);
  await hangUp(page);
});
