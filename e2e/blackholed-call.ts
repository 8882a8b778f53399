import type { Page } from '@playwright/test';
import { callConnected, type Simulator } from './fixtures.js';

/**
 * A call whose media is blackholed from its very start (the simulator's `media-blackhole`, armed on the request
 * that places it), as in a browser that pairs with none of the service's ICE candidates; for the specs of what
 * the page says while no audio flows and of the path that comes back.
 */


/** Every audio state the page shows, with when (ms since the epoch), as it shows them. */
export type AudioStates = Array<{ state: string; at: number }>;

/** Places a call whose media is blackholed for `ms`; resolves once it reads `connected`. */
export async function placeBlackholedCall(page: Page, simulator: Simulator, ms: number): Promise<{ callId: string; networkBackAt: number; audio: AudioStates }> {
  const audio: AudioStates = [];
  await page.exposeFunction('__audio', (state: string) => audio.push({ state, at: Date.now() }));
  await page.evaluate(() => {
    const cell = document.querySelector('[data-testid="audio"]');
    if (cell) new MutationObserver(() => (window as unknown as { __audio(s: string): void }).__audio(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
  });
  // The blackhole strikes once the call's request ran: its offer is made and its INVITE sent, no ICE check has gone.
  await simulator.fault({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'media-blackhole', ms });
  const networkBackAt = Date.now() + ms;
  const callId = await callConnected(page);
  return { callId, networkBackAt, audio };
}
