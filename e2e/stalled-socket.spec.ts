import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, test } from './fixtures.js';

/**
 * A SIP WebSocket that stalls without closing (the simulator's `stall-sip-socket`: open, answering nothing)
 * is found by the keep-alive within 15 s and reconnected as a dropped one: `reconnecting`, then `ready` on a
 * new socket; a call in progress keeps its audio meanwhile, and calls ring again afterwards.
 */

const SIM_KEY = process.env.E2E_SIM_API_KEY ?? '';

test('a stalled SIP socket is declared dead within 15 s and reconnected, the call in progress keeps its audio', async ({ page, simulator }) => {
  const sessionId = await logInAndConnect(page, 'e2e-stalled-socket');
  // Every connection state the page shows, with when: a reconnect on loopback is over in a blink.
  const states: Array<{ state: string; at: number }> = [];
  await page.exposeFunction('__connection', (state: string) => states.push({ state, at: Date.now() }));
  await page.evaluate(() => {
    const cell = document.querySelector('[data-testid="connection"]');
    if (cell) new MutationObserver(() => (window as unknown as { __connection(s: string): void }).__connection(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  });
  await callConnected(page);
  const before = await pageAudioStats(page);

  // Armed on a read of the session, which the test makes itself with the suite's key.
  await simulator.fault({ method: 'GET', path: '/api/v1/voice/browser-sessions/:id', fault: 'stall-sip-socket', sessionId });
  const read = await fetch(`${simulator.url}/api/v1/voice/browser-sessions/${sessionId}`, { headers: { 'x-api-key': SIM_KEY } });
  expect(read.status).toBe(200);
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
