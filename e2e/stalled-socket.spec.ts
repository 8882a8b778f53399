import type { Page } from '@playwright/test';
import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, strikeNow, test } from './fixtures.js';

/**
 * A SIP WebSocket that stalls without closing (the simulator's `stall-sip-socket`: open, answering nothing)
 * is found by the keep-alive within 15 s and reconnected as a dropped one: `reconnecting`, then `ready` on a
 * new socket; a call in progress keeps its audio meanwhile, and calls ring again afterwards. The stalled socket
 * does not even answer the page's close, so the page must not wait on it. Back `online`, the page asks its
 * socket at once instead of waiting out the silence.
 */

/** Every connection state the page shows from now on, with when: a reconnect on loopback is over in a blink. */
async function connectionStates(page: Page): Promise<Array<{ state: string; at: number }>> {
  const states: Array<{ state: string; at: number }> = [];
  await page.exposeFunction('__connection', (state: string) => states.push({ state, at: Date.now() }));
  await page.evaluate(() => {
    const cell = document.querySelector('[data-testid="connection"]');
    if (cell) new MutationObserver(() => (window as unknown as { __connection(s: string): void }).__connection(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  });
  return states;
}

test('a stalled SIP socket is declared dead within 15 s and reconnected, the call in progress keeps its audio', async ({ page, simulator }) => {
  const sessionId = await logInAndConnect(page, 'e2e-stalled-socket');
  const states = await connectionStates(page);
  await callConnected(page);
  const before = await pageAudioStats(page);

  await strikeNow(simulator, { fault: 'stall-sip-socket', sessionId });
  const stalledAt = Date.now();

  await expect.poll(() => states.find((entry) => entry.state === 'reconnecting'), { timeout: 16_000 }).toBeDefined();
  const noticedAfter = (states.find((entry) => entry.state === 'reconnecting')?.at ?? 0) - stalledAt;
  expect(noticedAfter).toBeLessThanOrEqual(15_500);
  await expect(page.getByTestId('connection')).toHaveText('ready', { timeout: 10_000 });
  expect(states.map((entry) => entry.state).slice(-2)).toEqual(['reconnecting', 'ready']);

  // The call went on through it all, with audio both ways.
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(before.received + 100);
  await hangUp(page);

  // The new socket is the one the service rings.
  await callConnected(page);
  await hangUp(page);
});

test('back online, the page asks its socket at once: a stalled one is reconnected within 4 s, not 15', async ({ page, simulator }) => {
  const sessionId = await logInAndConnect(page, 'e2e-online-probe');
  const states = await connectionStates(page);
  await strikeNow(simulator, { fault: 'stall-sip-socket', sessionId });
  // The browser says the network is back (a change of Wi-Fi, a cable plugged in): the socket may be dead.
  const onlineAt = Date.now();
  await page.evaluate(() => window.dispatchEvent(new Event('online')));
  await expect.poll(() => states.find((entry) => entry.state === 'reconnecting'), { timeout: 5000 }).toBeDefined();
  // The probe's 3 s, then the second the dead socket's close is waited for.
  expect((states.find((entry) => entry.state === 'reconnecting')?.at ?? 0) - onlineAt).toBeLessThan(4500);
  await expect(page.getByTestId('connection')).toHaveText('ready', { timeout: 10_000 });
  await callConnected(page);
  await hangUp(page);
});
