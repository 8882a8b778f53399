import type { Page } from 'playwright-core';
import { createSimulatorControl, type SimulatorControl } from '../simulator/http/control-client.js';
import { openBenchPage } from './browser.js';
import { startDesk, type BenchDesk, type Stamps } from './desk-app.js';
import { startBenchSimulator } from './simulator-process.js';

/** A desk to measure: the demo's desk over the bench's own simulator, the simulator's control API, one agent's page. */
export interface DeskBench {
  desk: BenchDesk;
  control: SimulatorControl;
  page: Page;
}

/**
 * Runs `measure` against a fresh desk whose webhooks `webhooks` stamps, signed in as `username` (with `offers`,
 * its offer-mode queue ends each call with that wrap-up), and stops the page, the desk and the simulator after,
 * whatever happened, in the reverse of their start.
 */
export async function withDeskBench<T>(username: string, webhooks: Stamps, offers: { wrapUpMs: number } | undefined, measure: (bench: DeskBench) => Promise<T>): Promise<T> {
  const simulator = await startBenchSimulator();
  const stops: Array<() => Promise<void>> = [() => simulator.stop()];
  try {
    const desk = await startDesk(simulator.url, webhooks, offers);
    stops.unshift(() => desk.close());
    const tab = await openBenchPage(desk.url, username);
    stops.unshift(() => tab.close());
    return await measure({ desk, control: createSimulatorControl(simulator.url), page: tab.page });
  } finally {
    for (const stop of stops) await stop();
  }
}
