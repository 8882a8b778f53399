import type { Locator, Page } from '@playwright/test';
import { callConnected, expect, hangUp, logIn, logInAndConnect, screenshot, test } from './fixtures.js';

/**
 * The demo as a softphone: the call card above the fold at a desktop's 1280×800 and a phone's 390×844, the
 * diagnostics beside the phone on the desktop, button rows that never wrap there, one error beside what
 * caused it, nothing scrolling sideways down to 360 px, and every control reached and worked by the keyboard
 * alone. Screenshots go to SCREENSHOTS_DIR (the suite's fixtures).
 */

async function noSidewaysScroll(page: Page) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(scroll).toBeLessThanOrEqual(width);
}

/**
 * The element lies wholly inside the viewport as loaded: seen without scrolling. The page is put back at its top
 * first: Playwright scrolls to a button before it clicks it (Connect sits below the support desk's panel).
 */
async function aboveTheFold(page: Page, locator: Locator) {
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  expect(box, 'laid out').not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(viewport!.height);
}

/** Each row of buttons lays its buttons on one line. */
async function rowsDoNotWrap(page: Page) {
  const rows = await page.locator('.call-actions, .connection .buttons').evaluateAll((elements) =>
    elements.map((row) => ({ row: row.className, tops: [...row.querySelectorAll('button')].map((button) => Math.round(button.getBoundingClientRect().top)) })),
  );
  expect(rows.length).toBeGreaterThan(0);
  for (const { row, tops } of rows) expect(new Set(tops).size, `${row}: ${tops.join(', ')}`).toBe(1);
}

/** What the keyboard can reach: enabled buttons, inputs, selects, and each region that scrolls (tabindex 0). */
const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), [tabindex="0"]';

/**
 * Puts the focus on the page's first control, where a keyboard user starts after a load. Every walk starts there
 * and stops at the control it looks for: none goes past the page's last control, since Firefox under WebDriver
 * BiDi stops activating buttons by key once Tab has taken the focus out to the browser's own UI and back.
 */
async function focusFirstControl(page: Page) {
  await page.evaluate((selector) => [...document.querySelectorAll<HTMLElement>(selector)].find((element) => element.getClientRects().length > 0)?.focus(), FOCUSABLE);
}

/** Presses Tab from the page's first control until the focused element is the button named `name`, then Enter. */
async function tabToAndPress(page: Page, name: string) {
  await focusFirstControl(page);
  for (let i = 0; i < 60; i++) {
    const focused = await page.evaluate(() => (document.activeElement instanceof HTMLButtonElement ? (document.activeElement.textContent ?? '').trim() : ''));
    if (focused === name) return page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
  }
  throw new Error(`no button named ${name} reached by Tab`);
}

/**
 * Tabs through the whole page once, from its first control, and checks that every enabled control was reached,
 * each with a name a screen reader says.
 */
async function everyControlByKeyboard(page: Page) {
  const controls = await page.evaluate((selector) => {
    const marked = [...document.querySelectorAll<HTMLElement>(selector)].filter((element) => element.getClientRects().length > 0);
    marked.forEach((element, i) => (element.dataset.walk = String(i)));
    return marked.length;
  }, FOCUSABLE);
  expect(controls).toBeGreaterThan(3);
  await focusFirstControl(page);
  const reached = new Set<string>();
  for (let i = 0; i < controls + 5 && reached.size < controls; i++) {
    const walk = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.walk);
    if (walk !== undefined) reached.add(walk);
    if (reached.size < controls) await page.keyboard.press('Tab');
  }
  expect(reached.size).toBe(controls);
  const unnamed = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('[data-walk]')].filter((element) => {
      const label = element.getAttribute('aria-label') || element.textContent?.trim() || (element.id && document.querySelector(`label[for="${element.id}"]`)) || element.closest('label');
      return !label;
    }).map((element) => element.outerHTML.slice(0, 80)),
  );
  expect(unnamed).toEqual([]);
}

test.describe('at a desktop 1280×800', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('the call card is above the fold, the diagnostics beside the phone, rows unwrapped, one error beside its cause', async ({ page }) => {
    await logInAndConnect(page, 'e2e-layout-desktop');
    const card = page.getByTestId('call-card');
    await expect(card.getByTestId('call-words')).toHaveText('Ready');
    await aboveTheFold(page, card);

    // A refused number: the error shows on the card, once, not beside the connection.
    await page.getByLabel('Number to call').fill('12345');
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await expect(card.getByTestId('error-code')).toContainText('invalid_argument');
    await expect(page.getByTestId('error-code')).toHaveCount(1);
    await expect(page.getByRole('region', { name: 'Connection' }).getByRole('alert')).toHaveCount(0);

    // A call that goes through clears it, and the card says the call's state, who, and how long.
    await callConnected(page);
    await expect(page.getByTestId('error-code')).toHaveCount(0);
    await expect(card.getByTestId('call-words')).toHaveText('Connected to +12025550100');
    await expect(card.getByTestId('call-parties')).toHaveText(/^To \+12025550100 from \+1\d{10}$/);
    await expect(card.getByTestId('call-time')).toHaveText(/^0:0[1-9]$/);
    await expect(card.getByRole('button', { name: 'Hang up' })).toBeEnabled();
    await aboveTheFold(page, card);
    await rowsDoNotWrap(page);
    await noSidewaysScroll(page);

    // The phone on one side, the diagnostics on the other.
    const phone = (await page.locator('.phone-column').boundingBox())!;
    const status = (await page.getByRole('region', { name: 'Status' }).boundingBox())!;
    expect(status.x).toBeGreaterThanOrEqual(phone.x + phone.width);
    expect(status.y).toBeLessThan(800);
    await expect(page.getByTestId('call-quality')).toContainText('packets in');
    await screenshot(page, 'desktop-connected', { asSeen: true });

    // An ended call stays on the card, in words, until the next call.
    await hangUp(page);
    await expect(card.getByTestId('call-words')).toHaveText('Ended: you hung up');
    await expect(card.getByTestId('call-parties')).toHaveText(/^To \+12025550100/);
    await expect(card.getByRole('button', { name: 'Call', exact: true })).toBeEnabled();
    await aboveTheFold(page, card);
  });
});

test.describe('at a phone 390×844', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the call card comes first and holds the call, with Hang up, Mute and the keypad in reach', async ({ page }) => {
    await logInAndConnect(page, 'e2e-layout-phone');
    const card = page.getByTestId('call-card');
    await callConnected(page);
    await expect(card.getByTestId('call-words')).toHaveText('Connected to +12025550100');
    await aboveTheFold(page, card);
    await page.getByRole('button', { name: 'Keypad' }).click();
    await expect(card.getByRole('group', { name: 'Keypad' })).toBeVisible();
    await noSidewaysScroll(page);
    await expect(page.getByTestId('call-quality')).toContainText('packets in');
    await screenshot(page, 'phone-connected', { asSeen: true });
    await hangUp(page);
    await expect(card.getByTestId('call-words')).toHaveText('Ended: you hung up');
  });
});

test.describe('at 360 px', () => {
  test.use({ viewport: { width: 360, height: 740 } });

  test('the page works by keyboard alone, the diagrams follow the call, and nothing scrolls sideways', async ({ page }) => {
    await page.goto('/');
    await screenshot(page, '01-login');
    await noSidewaysScroll(page);
    await logIn(page, 'e2e-layout');

    await expect(page.getByRole('button', { name: 'Connect', exact: true })).toBeEnabled();
    await tabToAndPress(page, 'Connect');
    await expect(page.getByTestId('connection')).toHaveText('ready');
    const connection = page.getByRole('figure', { name: 'Connection states' });
    await expect(connection.locator('[aria-current="step"]')).toHaveText('ready');
    await expect(connection.locator('.path')).toHaveText('Path: disconnected → connecting → ready');
    await expect(connection.locator('path.taken')).toHaveCount(2);
    await expect(page.getByRole('region', { name: 'Event log' })).toContainText('registered');
    await everyControlByKeyboard(page);
    await screenshot(page, '02-ready');
    await noSidewaysScroll(page);

    await tabToAndPress(page, 'Call');
    await expect(page.getByTestId('call-state')).toHaveText('connected');
    const call = page.getByRole('figure', { name: 'Call states' });
    await expect(call.locator('[aria-current="step"]')).toHaveText('connected');
    // The path is what the reads proved: a recipient that answers at once may skip dialing_recipient between two reads.
    await expect(call.locator('.path')).toHaveText(/^Path: waiting_agent → (dialing_recipient → )?connected$/);
    await expect(page.getByRole('region', { name: 'Event log' })).toContainText('media_connected');
    await expect(page.getByTestId('call-time')).toHaveText(/^0:0[1-9]$/);
    await tabToAndPress(page, 'Keypad');
    await expect(page.getByRole('group', { name: 'Keypad' })).toBeVisible();
    await everyControlByKeyboard(page);
    // The first quality sample comes 2 s into the media; the screenshot shows it.
    await expect(page.getByTestId('call-quality')).toContainText('packets in');
    await screenshot(page, '03-connected');
    await noSidewaysScroll(page);

    await tabToAndPress(page, 'Hang up');
    await expect(page.getByTestId('busy')).toHaveText('false');
    await expect(call.locator('[aria-current="step"]')).toHaveText('ended');
    await expect(call.locator('.path')).toHaveText(/→ connected → (ending → )?ended$/);
    await screenshot(page, '04-ended');
    await noSidewaysScroll(page);
  });
});
