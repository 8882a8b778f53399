import { freeUdpPort, startKamailio } from '../scripts/start-kamailio.js';

/**
 * The SIP edge a Playwright project puts between the page and the simulator (its `sipEdge` option, one of the
 * suite's fixtures): none, the page speaking SIP over WebSocket to the simulator itself, or Debian's Kamailio relaying
 * it over UDP to the simulator's UDP side, as a service's real edge does.
 */
export const SIP_EDGES = ['none', 'kamailio'] as const;

/** A project's edge in front of the simulator. */
export type SipEdge = (typeof SIP_EDGES)[number];

/** A started edge: the app's configuration that points the simulator and the pages at it, and how to stop it. */
export interface RunningEdge {
  /** SIM_SIP_UDP_PORT and SIM_SIP_EDGE_URL for the app, or nothing for `none`. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts the edge (`kamailio`: installed if missing, on free loopback ports, stopped by its PID): the simulator's
 * UDP side gets a free port before it starts, Kamailio relays to it, and the sessions tell the pages Kamailio's
 * WebSocket URL instead of the simulator's.
 */
export async function startEdge(edge: SipEdge): Promise<RunningEdge> {
  if (edge === 'none') return { env: {}, stop: async () => undefined };
  const simulatorUdpPort = await freeUdpPort();
  const kamailio = await startKamailio(simulatorUdpPort);
  return { env: { SIM_SIP_UDP_PORT: String(simulatorUdpPort), SIM_SIP_EDGE_URL: kamailio.websocketUrl }, stop: () => kamailio.stop() };
}
