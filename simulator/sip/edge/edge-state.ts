import { z } from 'zod';
import { parseControlInput } from '../../http/control-input.js';
import { CARRIER_INVITE_BODIES, defaultEdgeSettings, EDGE_PROFILES, edgeBehaviour, type EdgeBehaviour, type EdgeProfile, type EdgeSettings } from './edge-profile.js';

/**
 * The edge the simulator speaks as now (`EDGE_PROFILES`), as the control API changes it: its profile and
 * settings, and whether it is restarting (refusing new WebSockets until a time).
 */

/** `PUT /__sim/edge`: a profile, and the settings a test may shorten or switch (each defaults to the profile's own). */
export const edgeInput = z.strictObject({
  profile: z.enum(EDGE_PROFILES, { error: `must be ${EDGE_PROFILES.map((profile) => `"${profile}"`).join(', ')}` }),
  sessionExpiresSeconds: z.number().int().min(2).max(7200).optional(),
  carrierInviteBody: z.enum(CARRIER_INVITE_BODIES).optional(),
  refuseEveryNthRefresh: z.number().int().min(0).max(1000).optional(),
});

/** `POST /__sim/edge/restart`: how long the edge is away. */
export const edgeRestartInput = z.strictObject({ seconds: z.number().min(0).max(600) });

/** The edge as `GET /__sim/edge` answers it. */
export interface EdgeView extends EdgeSettings {
  /** While the edge restarts, when it takes WebSockets again (ISO 8601); null when it is up. */
  restartingUntil: string | null;
}

/** The edge's profile and restart, as the registrar, the INVITEs and the control API share them. */
export class EdgeState {
  private current: EdgeSettings;
  private restartEndsAt = 0;

  constructor(
    private readonly initial: EdgeProfile = 'kamailio',
    private readonly now: () => number = Date.now,
  ) {
    this.current = defaultEdgeSettings(initial);
  }

  get settings(): EdgeSettings {
    return this.current;
  }

  /** What the profile does now. */
  behaviour(): EdgeBehaviour {
    return edgeBehaviour(this.current);
  }

  /** Sets the profile for what comes next; answers the edge as it now stands. */
  set(input: unknown): EdgeView {
    const { profile, ...overrides } = parseControlInput(edgeInput, input);
    const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
    this.current = { ...defaultEdgeSettings(profile), ...defined };
    return this.view();
  }

  /** Back to the profile the simulator started with, up. */
  reset(): void {
    this.current = defaultEdgeSettings(this.initial);
    this.restartEndsAt = 0;
  }

  /** The edge is away for `ms` from now: no WebSocket upgrade is taken until then. */
  restart(ms: number): void {
    this.restartEndsAt = this.now() + ms;
  }

  /** Whether the edge is restarting now. */
  restarting(): boolean {
    return this.now() < this.restartEndsAt;
  }

  view(): EdgeView {
    return { ...this.current, restartingUntil: this.restarting() ? new Date(this.restartEndsAt).toISOString() : null };
  }
}
