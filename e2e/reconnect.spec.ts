import { callConnected, expect, hangUp, logInAndConnect, pageAudioStats, strikeNow, test, type Simulator } from './fixtures.js';

/**
 * A dropped SIP WebSocket (the simulator's close-sip-socket fault): the page shows `reconnecting`, reconnects
 * and registers again by itself, and takes calls as before. A call's audio does not need the socket, and its
 * BYE reaches the page on the new socket once the page refreshed the dialog's target there (a re-INVITE): real
 * edges route in-dialog requests by the dialog's target, not to an agent's newest socket (RFC 3261 section 12.2).
 */

/** Closes the session's SIP WebSocket at the simulator, now. */
const dropSipSocket = (simulator: Simulator, sessionId: string) => strikeNow(simulator, { fault: 'close-sip-socket', sessionId });

test('the page reconnects and registers again after its SIP socket drops, then calls as before', async ({ page, simulator }) => {
  const sessionId = await logInAndConnect(page, 'e2e-reconnect');

  const states: string[] = [];
  await page.exposeFunction('__connection', (state: string) => states.push(state));
  await page.evaluate(() => {
    const cell = document.querySelector('[data-testid="connection"]');
    if (cell) new MutationObserver(() => (window as unknown as { __connection(s: string): void }).__connection(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  });

  await dropSipSocket(simulator, sessionId);
  await expect.poll(() => states).toContain('reconnecting');
  await expect(page.getByTestId('connection')).toHaveText('ready');

  const callId = await callConnected(page);
  await expect.poll(async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(25);
  expect((await simulator.call(callId)).call.sessionId).toBe(sessionId);

  await hangUp(page);
  await expect.poll(async () => (await pageAudioStats(page)).connectionState).toBe('closed');
});

test("after a SIP socket drop mid-call, the page refreshes the dialog's target on its new socket and the service's BYE reaches it there", async ({ page, simulator, sipEdge }) => {
  await logInAndConnect(page, 'e2e-reconnect-bye');
  const callId = await callConnected(page);
  const { call } = await simulator.call(callId);
  await dropSipSocket(simulator, call.sessionId);
  await expect(page.getByTestId('connection')).toHaveText('ready');

  // The page's re-INVITE on its new socket moved the dialog's target there (counted by the far end).
  await expect.poll(async () => (await simulator.call(callId)).facts.reinvites).toBeGreaterThan(0);
  // The far end hangs up: the service ends the browser leg with a BYE, which only the page's new socket can carry.
  await simulator.remoteHangup(callId);
  await expect(page.getByTestId('busy')).toHaveText('false');
  const { facts } = await simulator.call(callId);
  expect(facts.browserLegEnd).toBe('answered');
  // Behind an edge the simulator holds no socket of the page's, so only without one can it see the drop.
  if (sipEdge === 'none') expect(facts.transportLostAt).not.toBeNull();
  await expect.poll(async () => (await pageAudioStats(page)).connectionState).toBe('closed');
});

test('a connected call keeps its audio through a SIP socket drop and hangs up cleanly after', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-reconnect-call');
  const callId = await callConnected(page);
  const { call } = await simulator.call(callId);

  await dropSipSocket(simulator, call.sessionId);
  await expect(page.getByTestId('connection')).toHaveText('ready');
  // Media never depended on the socket: it still flows, and the call is still connected.
  const before = (await pageAudioStats(page)).received;
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(before + 20);
  await expect(page.getByTestId('call-state')).toHaveText('connected');

  await hangUp(page);
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', busy: false });
  await expect.poll(async () => (await pageAudioStats(page)).connectionState).toBe('closed');
});
