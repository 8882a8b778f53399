/**
 * The edge routes' shapes of the simulator's control API (`createSimulatorControl`), written out as the others are, so
 * the package's types reach nothing of its insides.
 */

/**
 * The SIP edge the simulator speaks as (docs/simulator.md, "Edge profiles"): `kamailio` (the default: pongs CRLF
 * keep-alives, confirms outbound), `no-crlf-pong` (OpenSIPS, Asterisk, FreeSWITCH: neither), `asterisk` (100rel
 * required, session-timer refreshes, SHA-256 and MD5 challenges, no pong), `carrier-sbc` (`Min-Expires: 3600`,
 * one-use nonces, `Expires` only as a header, INVITEs with `Expires`, multipart or offerless bodies, `503` to
 * some refreshes). Every profile routes in-dialog requests by the dialog's target, as real edges do.
 */
export type SimulatorEdgeProfile = 'kamailio' | 'no-crlf-pong' | 'asterisk' | 'carrier-sbc';

/** A profile for {@link SimulatorControl.setEdge}, with the settings a test may shorten or switch. */
export interface SimulatorEdgeInput {
  profile: SimulatorEdgeProfile;
  /** `asterisk`: the RFC 4028 session interval in seconds (2-7200, default 90); the service refreshes at half of it. */
  sessionExpiresSeconds?: number;
  /** `carrier-sbc`: INVITEs with the offer beside an ISUP part (`multipart`, the default) or with none (`offerless`). */
  carrierInviteBody?: 'multipart' | 'offerless';
  /** `carrier-sbc`: every Nth refresh of a registration is refused `503` with `Retry-After` (default 2; 0: none). */
  refuseEveryNthRefresh?: number;
}

/** The edge as the simulator holds it now. */
export interface SimulatorEdge extends Required<SimulatorEdgeInput> {
  /** While it restarts, when it takes WebSockets again (ISO 8601); null when it is up. */
  restartingUntil: string | null;
}
