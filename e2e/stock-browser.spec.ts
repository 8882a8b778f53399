import { test as base, type Page } from '@playwright/test';
import { startApp, type RunningApp } from '../scripts/start-app.js';
import { inTestNetwork, TEST_NETWORK } from '../scripts/test-network.js';
import { createSimulatorControl, type SimulatorControl } from '../simulator/http/control-client.js';
import { expect, hangUp, logInAndConnect, pageAudioStats, recordPeerConnections } from './fixtures.js';

/**
 * The demo in a browser as a person runs it (the stock-* projects: a fake microphone and nothing else; no
 * loopback switch, host candidates hidden behind mDNS names), against the app as `npm start` starts it: the
 * simulator's media on its default addresses, this machine's own. The run's network namespace stands in for the
 * machine (one the e2e run makes for itself): the browser pairs with the simulator on a veth address, never loopback.
 */

/** The app with the simulator's media left at `npm start`'s default, one per worker (one per engine). */
const test = base.extend<{ simulator: SimulatorControl }, { app: RunningApp }>({
  app: [
    async ({}, use) => {
      // Such a browser gathers on, and multicasts over, the network it finds: only the run's namespace will do.
      if (!inTestNetwork()) throw new Error(`the stock-browser projects run only inside their test network (${TEST_NETWORK.subnet}0/24): run them with npm run test:e2e or npm run test:e2e:stock`);
      // SIM_MEDIA_ADDRESSES left unset: the default a person gets, rather than the suite's loopback.
      const app = await startApp({ SIM_MEDIA_ADDRESSES: undefined });
      try {
        await use(app);
      } finally {
        await app.stop();
      }
    },
    { scope: 'worker', auto: true },
  ],
  baseURL: async ({ app }, use) => use(app.demo),
  simulator: async ({ app }, use) => use(createSimulatorControl(app.sim)),
  page: async ({ page }, use) => {
    await page.addInitScript(recordPeerConnections);
    await use(page);
  },
});

/** A candidate of the page's selected ICE pair, as its `getStats()` reports it. */
interface PairEnd {
  address: string;
  candidateType: string;
}

/**
 * The page's last peer connection: the two ends of its selected ICE pair (Chromium names it on the transport,
 * Firefox marks it `selected`), and the addresses its own SDP gave for its host candidates.
 */
async function iceFacts(page: Page): Promise<{ local: PairEnd | null; remote: PairEnd | null; offeredHosts: string[] }> {
  // JSON from the page: under WebDriver BiDi an object that appears twice in a result comes back once.
  const json = await page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    if (!pc) return JSON.stringify({ local: null, remote: null, offeredHosts: [] });
    type Report = {
      id: string;
      type: string;
      selectedCandidatePairId?: string;
      selected?: boolean;
      localCandidateId?: string;
      remoteCandidateId?: string;
      address?: string;
      candidateType?: string;
    };
    const reports: Report[] = [];
    (await pc.getStats()).forEach((report: Report) => reports.push(report));
    const byId = new Map(reports.map((report) => [report.id, report]));
    const chosenId = reports.find((report) => report.type === 'transport' && report.selectedCandidatePairId)?.selectedCandidatePairId;
    const pair = chosenId ? byId.get(chosenId) : reports.find((report) => report.type === 'candidate-pair' && report.selected);
    const end = (id: string | undefined) => {
      const candidate = id ? byId.get(id) : undefined;
      return candidate ? { address: candidate.address ?? '', candidateType: candidate.candidateType ?? '' } : null;
    };
    const offeredHosts = (pc.localDescription?.sdp ?? '')
      .split(/\r?\n/)
      .filter((line) => line.startsWith('a=candidate:') && / typ host/.test(line))
      .map((line) => line.split(' ')[4] ?? '');
    return JSON.stringify({ local: end(pair?.localCandidateId), remote: end(pair?.remoteCandidateId), offeredHosts });
  });
  return JSON.parse(json) as { local: PairEnd | null; remote: PairEnd | null; offeredHosts: string[] };
}

test('a call from a browser with default settings pairs on the machine’s address, with audio both ways and DTMF heard', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-stock');
  await page.getByLabel('Number to call').fill('+12025550101');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('call-state')).toHaveText('connected');
  const callId = (await page.getByTestId('call-id').textContent()) ?? '';
  expect(callId).toMatch(/^bc_/);

  // Audio both ways, as the simulator counts it: the page's microphone in, the tone and the echo out.
  await expect.poll(async () => (await simulator.call(callId)).media?.packetsFromBrowser ?? 0).toBeGreaterThan(25);
  await expect.poll(async () => (await simulator.call(callId)).media?.packetsToBrowser ?? 0).toBeGreaterThan(25);
  await expect.poll(async () => (await pageAudioStats(page)).received).toBeGreaterThan(25);
  await expect(page.getByTestId('audio')).toHaveText('playing');

  // A stock browser offers no loopback candidate (Chromium names its host candidates by address once the page may
  // capture, Firefox by mDNS name): the pair is on the veth network, not loopback.
  const ice = await iceFacts(page);
  expect(ice.offeredHosts.length).toBeGreaterThan(0);
  for (const host of ice.offeredHosts) expect(host).not.toMatch(/^127\./);
  expect(ice.remote?.address).toMatch(/^10\.99\.0\.\d+$/);
  expect(ice.remote?.candidateType).toBe('host');
  expect(ice.local?.address).not.toMatch(/^127\./);

  // DTMF by RFC 4733 over the same path.
  await page.getByRole('button', { name: 'Keypad' }).click();
  const keypad = page.getByRole('group', { name: 'Keypad' });
  for (const digit of ['4', '#']) await keypad.getByRole('button', { name: `Dial ${digit}` }).click();
  await expect.poll(async () => (await simulator.call(callId)).facts.dtmf.map(({ digit, method }) => `${digit}:${method}`)).toEqual(['4:rfc4733', '#:rfc4733']);

  const { media } = await simulator.call(callId);
  if (process.env.E2E_VERBOSE) {
    console.log(`[${test.info().project.name}] packets from the browser ${media?.packetsFromBrowser}, to it ${media?.packetsToBrowser}; ICE ${JSON.stringify(ice)}`);
  }
  await hangUp(page);
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', endReason: 'api_hangup' });
});
