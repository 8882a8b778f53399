import type { Page } from '@playwright/test';
import type { NetworkProfile } from '../simulator/turn/network-profile.js';
import { turnBrowser } from './turn-browser.js';
import { callConnected, expect, hangUp, logInAndConnect, recordPeerConnections, strikeNow, test, userOfThisRun } from './fixtures.js';

/**
 * Calls through the simulator's TURN server (Debian's coturn on loopback) with the browser allowed no path but a
 * relay (`iceTransportPolicy: 'relay'`): over UDP, TCP and TLS, each read from the browser's own `getStats()` as a
 * relay of that protocol and shown so by the helper's quality line; an ICE restart that goes through TURN again;
 * and credentials the TURN server refuses, told as `turn_refused` rather than left a silent call. One browser of
 * the spec's own trusts coturn's self-signed certificate.
 */

/** Long enough for the page to see its path lost and restart ICE, short enough for the restart to find it back. */
const BLACKHOLE_MS = 3000;

/** The browser's selected pair's local candidate: its type and the protocol it reaches the TURN server by. */
async function selectedPath(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    if (!pc) return 'none';
    const report = await pc.getStats();
    type Stat = { type: string; id: string; selectedCandidatePairId?: string; selected?: boolean; nominated?: boolean; state?: string; localCandidateId?: string; candidateType?: string; relayProtocol?: string; protocol?: string };
    const stats: Stat[] = [];
    report.forEach((stat: Stat) => stats.push(stat));
    // libwebrtc names the pair on the transport; Firefox marks the pair itself `selected`.
    const pairId = stats.find((stat) => stat.type === 'transport')?.selectedCandidatePairId;
    const pair = stats.find((stat) => stat.type === 'candidate-pair' && (stat.id === pairId || stat.selected));
    const local = stats.find((stat) => stat.id === pair?.localCandidateId);
    return local ? `${local.candidateType}/${local.relayProtocol ?? local.protocol}` : 'none';
  });
}

test('calls over relay-only TURN/UDP, TURN/TCP and TURN/TLS, an ICE restart through TURN, refused credentials coded', async ({ playwright, browserName, baseURL, simulator }) => {
  const username = 'e2e-turn';
  // The demo's proxy gives a user the subject `demo:<username>`: the profiles apply to this user's sessions alone.
  const externalSubject = `demo:${userOfThisRun(username)}`;
  const profile = (name: NetworkProfile) => simulator.setNetwork({ profile: name, externalSubject });
  const { certificatePem = '' } = await profile('turn-udp');
  const browser = await turnBrowser(playwright, browserName, certificatePem, { baseURL, permissions: ['microphone'] });
  const page = await browser.context.newPage();
  await page.addInitScript(recordPeerConnections);

  await logInAndConnect(page, username);
  for (const [name, path] of [['turn-udp', 'relay/udp'], ['turn-tcp', 'relay/tcp'], ['turn-tls', 'relay/tls']] as const) {
    if (name !== 'turn-udp') {
      await profile(name);
      // A renewed session carries the new profile's ICE servers, with fresh TURN credentials.
      await page.getByRole('button', { name: 'Renew' }).click();
      await expect(page.getByTestId('connection')).toHaveText('ready');
    }
    const callId = await callConnected(page);
    await expect(page.getByTestId('audio')).toHaveText('playing');
    // The browser's own statistics, and the helper's quality line, name the relay and its protocol.
    expect(await selectedPath(page)).toBe(path);
    await expect(page.getByTestId('call-quality').last()).toContainText(`via ${path}`);
    if (name === 'turn-udp') {
      // An ICE restart (the path lost for a moment) goes through TURN again.
      const fromPage = async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0;
      await strikeNow(simulator, { fault: 'media-blackhole', ms: BLACKHOLE_MS, callId });
      await expect(page.getByTestId('audio')).toHaveText('reconnecting');
      const during = await fromPage();
      await expect.poll(fromPage).toBeGreaterThan(during);
      await expect(page.getByTestId('audio')).toHaveText('playing');
      expect((await simulator.call(callId)).facts.iceRestarts).toBeGreaterThanOrEqual(1);
      expect(await selectedPath(page)).toBe(path);
    }
    await hangUp(page);
  }

  await profile('turn-refused');
  await page.getByRole('button', { name: 'Renew' }).click();
  await expect(page.getByTestId('connection')).toHaveText('ready');
  await page.getByLabel('Number to call').fill('+12025550100');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('error-code')).toContainText('turn_refused');
  await expect(page.getByTestId('audio')).toHaveText('failed');
  await page.getByRole('button', { name: 'Hang up' }).click();
  await expect(page.getByTestId('busy')).toHaveText('false');
  await browser.close();
});
