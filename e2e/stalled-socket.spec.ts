import type { Page } from '@playwright/test';
import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, strikeNow, test } from './fixtures.js';

/**
 * A SIP WebSocket that stalls without closing (the simulator's `stall-sip-socket`: open, answering nothing)
 * is found by the keep-alive and reconnected as a dropped one: `reconnecting`, then `ready` on a new socket; a
 * call in progress keeps its audio meanwhile, and calls ring again afterwards. The stalled socket does not even
 * answer the page's close, so the page must not wait on it. What the page does is read from the pings it sends:
 * a socket is dead only after a ping and its last chance both went unanswered, and back `online` the page asks
 * at once with one ping, instead of waiting out the silence. How long each takes is the bench's (network part).
 */

/**
 * Run in the page before its scripts: for each WebSocket the page sends on, the double-CRLF pings (RFC 5626)
 * sent since the last pong came back.
 */
function countUnansweredPings(): void {
  const w = window as unknown as { __sockets: Array<WebSocket & { __unanswered: number }> };
  w.__sockets = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket & { __unanswered?: number }, data) {
    if (this.__unanswered === undefined) {
      this.__unanswered = 0;
      w.__sockets.push(this as WebSocket & { __unanswered: number });
      this.addEventListener('message', (event: MessageEvent) => {
        if (event.data === '\r\n') this.__unanswered = 0;
      });
    }
    if (data === '\r\n\r\n') this.__unanswered += 1;
    return send.call(this, data);
  };
}

/** The pings left unanswered on each socket the page has sent on, oldest socket first. */
const unansweredPings = (page: Page) => page.evaluate(() => (window as unknown as { __sockets: Array<{ __unanswered: number }> }).__sockets.map((socket) => socket.__unanswered));

/** Every connection state the page shows from now on: a reconnect on loopback is over too soon to poll for it. */
async function connectionStates(page: Page): Promise<string[]> {
  const states: string[] = [];
  await page.exposeFunction('__connection', (state: string) => states.push(state));
  await page.evaluate(() => {
    const cell = document.querySelector('[data-testid="connection"]');
    if (cell) new MutationObserver(() => (window as unknown as { __connection(s: string): void }).__connection(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  });
  return states;
}

test('a stalled SIP socket is declared dead once a ping and its last chance go unanswered, and reconnected; the call in progress keeps its audio', async ({ page, simulator }) => {
  await page.addInitScript(countUnansweredPings);
  const sessionId = await logInAndConnect(page, 'e2e-stalled-socket');
  const states = await connectionStates(page);
  await callConnected(page);
  const before = await pageAudioStats(page);

  await strikeNow(simulator, { fault: 'stall-sip-socket', sessionId });
  await expect.poll(() => states.includes('reconnecting'), { timeout: 30_000 }).toBe(true);
  // The stalled socket was given up after exactly two unanswered pings: the regular one, then its last chance.
  expect((await unansweredPings(page))[0]).toBe(2);
  await expect(page.getByTestId('connection')).toHaveText('ready');
  expect(states.slice(-2)).toEqual(['reconnecting', 'ready']);

  // The call went on through it all, with audio both ways.
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(before.received + 100);
  await hangUp(page);

  // The new socket is the one the service rings.
  await callConnected(page);
  await hangUp(page);
});

test('back online, the page asks its socket at once: one ping sent on the spot, and a stalled socket is reconnected after it alone', async ({ page, simulator }) => {
  await page.addInitScript(countUnansweredPings);
  const sessionId = await logInAndConnect(page, 'e2e-online-probe');
  const states = await connectionStates(page);
  await strikeNow(simulator, { fault: 'stall-sip-socket', sessionId });
  // The browser says the network is back (a change of Wi-Fi, a cable plugged in): the socket may be dead. The page
  // pings within the event itself.
  const sent = await page.evaluate(() => {
    const sockets = (window as unknown as { __sockets: Array<{ __unanswered: number }> }).__sockets;
    const before = sockets[0]?.__unanswered ?? 0;
    window.dispatchEvent(new Event('online'));
    return { before, after: sockets[0]?.__unanswered ?? 0 };
  });
  expect(sent.after - sent.before).toBe(1);
  await expect.poll(() => states.includes('reconnecting'), { timeout: 30_000 }).toBe(true);
  // That probe was the last chance: the socket was given up on it, not after another round of pings.
  expect((await unansweredPings(page))[0]).toBe(sent.after);
  await expect(page.getByTestId('connection')).toHaveText('ready');
  await callConnected(page);
  await hangUp(page);
});
