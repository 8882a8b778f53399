import { SILENCE_WARN_MS } from '../lib/core/call-warnings.js';
import type { SimulatorEdgeInput } from '../simulator/http/control-client.js';
import { afterPageTimers, callConnected, expect, logInAndConnect, test, type Simulator } from './fixtures.js';

/**
 * One call behind each SIP edge the simulator can speak as (docs/simulator.md, "Edge profiles"): the page
 * connects and stays `ready`, answers the service's INVITE, keys a digit, and hears the far end hang up. Where
 * the edge answers no CRLF keep-alive, the page must not call its socket dead for it (RFC 5626 section 4.4.1
 * expects a pong only from an edge that confirmed outbound), so that case outlives the keep-alive's wait.
 */

/** Long enough after `ready` for a keep-alive that waits for a pong the edge never sends to have given up. */
const PAST_KEEPALIVE_MS = 14_000;

/** Held twice as long as the silence the page warns of on a live call, so its samples of the held audio have judged it. */
const HELD_MS = 2 * SILENCE_WARN_MS;

/** What each profile adds to the call, beside connect, answer, DTMF and hangup. */
interface EdgeCase {
  edge: SimulatorEdgeInput;
  /** The edge answers no CRLF ping: the socket must outlive a keep-alive's wait. */
  noPong: boolean;
  /** The far end holds the call and takes it off hold (an `asterisk` edge, without music on hold). */
  hold: boolean;
  /** The INVITE requires 100rel: the page's 180 must be reliable, and the edge's PRACK answered (RFC 3262). */
  rel100: boolean;
}

const CASES: EdgeCase[] = [
  { edge: { profile: 'kamailio' }, noPong: false, hold: false, rel100: false },
  { edge: { profile: 'no-crlf-pong' }, noPong: true, hold: false, rel100: false },
  // A short session interval, so the call meets the service's refresh re-INVITEs and UPDATEs.
  { edge: { profile: 'asterisk', sessionExpiresSeconds: 4 }, noPong: true, hold: true, rel100: true },
  { edge: { profile: 'carrier-sbc', carrierInviteBody: 'multipart' }, noPong: false, hold: false, rel100: false },
  { edge: { profile: 'carrier-sbc', carrierInviteBody: 'offerless' }, noPong: false, hold: false, rel100: false },
];

/** Keys `digit` on the demo's keypad; resolves once the far end heard it. */
async function keyDigit(page: import('@playwright/test').Page, simulator: Simulator, callId: string, digit: string): Promise<void> {
  await page.getByRole('button', { name: 'Keypad' }).click();
  await page.getByRole('group', { name: 'Keypad' }).getByRole('button', { name: `Dial ${digit}` }).click();
  await expect.poll(async () => (await simulator.call(callId)).facts.dtmf.map((event) => event.digit)).toEqual([digit]);
}

for (const { edge, noPong, hold, rel100 } of CASES) {
  const name = edge.carrierInviteBody ? `${edge.profile} (${edge.carrierInviteBody} INVITE)` : edge.profile;
  test.describe(`behind ${name}`, () => {
    test.use({ edgeProfile: edge });

    test('connects and stays ready, answers, keys a digit, and ends on the far end\'s hangup', async ({ page, simulator }) => {
      test.setTimeout(60_000);
      const sessionId = await logInAndConnect(page, `e2e-edge-${edge.profile}-${edge.carrierInviteBody ?? 'sdp'}`);
      // Counted on the page's own timers, which run its keep-alive: a loaded machine runs them late.
      const pastKeepAlive = noPong ? afterPageTimers(page, PAST_KEEPALIVE_MS) : Promise.resolve();
      // (Awaited below; a step that fails before then is the error to report, not this wait's.)
      pastKeepAlive.catch(() => undefined);
      const callId = await callConnected(page);
      await expect.poll(async () => (await simulator.call(callId)).facts.mediaConnectedAt).not.toBeNull();
      // The page hears the far end too: its audio plays, whichever side made the offer.
      await expect(page.getByTestId('audio')).toHaveText('playing');
      await keyDigit(page, simulator, callId, '5');
      if (rel100) expect((await simulator.call(callId)).facts.edgeRequests[0]).toMatchObject({ method: 'PRACK', statusCode: 200 });

      if (hold) {
        expect(await simulator.hold(callId)).toBe(200);
        await expect(page.getByTestId('audio')).toHaveText('held');
        // A far end that holds is not a failed call: no advice to hang up while it lasts, for as long as the page
        // takes to call silence a warning (counted on its own timers, which sample its audio).
        await afterPageTimers(page, HELD_MS);
        await expect(page.getByTestId('call-warnings')).toHaveCount(0);
        await expect(page.getByTestId('audio')).toHaveText('held');
        expect(await simulator.unhold(callId)).toBe(200);
        await expect(page.getByTestId('audio')).toHaveText('playing');
        await expect(page.getByTestId('call-state')).toHaveText('connected');
      }
      await pastKeepAlive;
      // Still on its first socket: no keep-alive called the edge dead, no refresh lost the binding.
      await expect(page.getByTestId('connection')).toHaveText('ready');
      expect(await simulator.registration(sessionId)).toMatchObject({ registered: true, sockets: 1, unregisteredMs: 0 });
      // Every request the edge sent in the call (its PRACK, session refreshes, the hold) was answered 2xx by the page.
      for (const request of (await simulator.call(callId)).facts.edgeRequests) expect(request, request.method).toMatchObject({ statusCode: 200 });

      await simulator.remoteHangup(callId);
      await expect(page.getByTestId('call-state')).toHaveText('ended');
      await expect(page.getByTestId('busy')).toHaveText('false');
      expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', endReason: 'recipient_hangup' });
      await expect.poll(async () => (await simulator.call(callId)).facts.browserLegEnd).toBe('answered');
    });
  });
}
