import type { SimulatorControl, SimulatorEdgeInput, SimulatorEdgeProfile } from './control-client.js';

/**
 * Runs `run` with the simulator speaking as the SIP edge `edge` (a profile's name, or its settings), then puts
 * back the edge it had, whether `run` passed or threw: a test's edge never leaks into the next test. With
 * `edge` undefined, `run` runs on the edge as it is.
 */
export async function withEdge(control: Pick<SimulatorControl, 'edge' | 'setEdge'>, edge: SimulatorEdgeProfile | SimulatorEdgeInput | undefined, run: () => Promise<void>): Promise<void> {
  if (edge === undefined) return run();
  const before = await control.edge();
  await control.setEdge(typeof edge === 'string' ? { profile: edge } : edge);
  try {
    await run();
  } finally {
    // A restart in progress is the edge's state, not a setting to put back.
    const { restartingUntil: _, ...settings } = before;
    await control.setEdge(settings);
  }
}
