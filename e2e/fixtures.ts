import { expect, test as base, type Page } from '@playwright/test';

/**
 * Fixtures shared by the e2e specs: the app's URLs, the simulator's control API, and a page that
 * records its RTCPeerConnections so a test can read the browser's own `getStats()`.
 */

export interface SimCall {
  call: { id: string; sessionId: string; state: string; busy: boolean; endReason: string | null };
  facts: { inviteSentAt: string | null; mediaConnectedAt: string | null };
  media: { packetsFromBrowser: number; voicedPacketsFromBrowser: number; packetsToBrowser: number } | null;
}

export interface Simulator {
  url: string;
  call(id: string): Promise<SimCall>;
}

export const test = base.extend<{ simulator: Simulator }>({
  baseURL: async ({}, use) => use(process.env.E2E_BASE_URL),
  simulator: async ({}, use) => {
    const url = process.env.E2E_SIM_URL ?? '';
    await use({
      url,
      call: async (id) => {
        const response = await fetch(`${url}/__sim/calls/${encodeURIComponent(id)}`);
        expect(response.status).toBe(200);
        return (await response.json()) as SimCall;
      },
    });
  },
  page: async ({ page }, use) => {
    await page.addInitScript(() => {
      const pcs: RTCPeerConnection[] = [];
      (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs = pcs;
      const Native = window.RTCPeerConnection;
      window.RTCPeerConnection = class extends Native {
        constructor(config?: RTCConfiguration) {
          super(config);
          pcs.push(this);
        }
      };
    });
    await use(page);
  },
});

export { expect };

/** The browser's view of its last peer connection: inbound and outbound audio packets, and its state. */
export async function pageAudioStats(page: Page): Promise<{ received: number; sent: number; connectionState: string; peerConnections: number }> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    if (!pc) return { received: 0, sent: 0, connectionState: 'none', peerConnections: 0 };
    let received = 0;
    let sent = 0;
    (await pc.getStats()).forEach((report: { type: string; kind?: string; packetsReceived?: number; packetsSent?: number }) => {
      if (report.type === 'inbound-rtp' && report.kind === 'audio') received += report.packetsReceived ?? 0;
      if (report.type === 'outbound-rtp' && report.kind === 'audio') sent += report.packetsSent ?? 0;
    });
    return { received, sent, connectionState: pc.connectionState, peerConnections: pcs.length };
  });
}
