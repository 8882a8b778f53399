/**
 * The SIP edges the simulator can speak as (docs/simulator.md, "Edge profiles"): what a real edge in front of
 * a voice service says that our own registrar would not. A profile is read at each decision (a ping, a
 * REGISTER, an INVITE), so one set through the control API applies to what comes next.
 */

/** Every edge profile, the default first. */
export const EDGE_PROFILES = ['kamailio', 'no-crlf-pong', 'asterisk', 'carrier-sbc'] as const;

/**
 * An edge the simulator speaks as: `kamailio` (the default) pongs CRLF keep-alives and confirms outbound;
 * `no-crlf-pong` (OpenSIPS, Asterisk, FreeSWITCH) does neither; `asterisk` requires 100rel, refreshes the session
 * timer, holds without audio and challenges with SHA-256 and MD5; `carrier-sbc` wants long registrations, uses
 * each nonce once, rings with `Expires`, offerless or multipart INVITEs, and refuses some refreshes `503`.
 */
export type EdgeProfile = (typeof EDGE_PROFILES)[number];

/** How a `carrier-sbc` INVITE carries the service's side of the offer/answer. */
export const CARRIER_INVITE_BODIES = ['multipart', 'offerless'] as const;
export type CarrierInviteBody = (typeof CARRIER_INVITE_BODIES)[number];

/** A profile and the settings a test may shorten or switch. */
export interface EdgeSettings {
  profile: EdgeProfile;
  /**
   * `asterisk`: the session interval of RFC 4028 the INVITE asks for, in seconds; the service refreshes at half
   * of it, alternately by re-INVITE and UPDATE.
   */
  sessionExpiresSeconds: number;
  /** `carrier-sbc`: whether its INVITEs carry the offer beside an ISUP part (`multipart`) or none (`offerless`). */
  carrierInviteBody: CarrierInviteBody;
  /** `carrier-sbc`: every Nth refresh of a binding is refused `503` with `Retry-After`; 0 refuses none. */
  refuseEveryNthRefresh: number;
}

/** What a profile does, decision by decision: the one table the registrar, the INVITEs and the pings read. */
export interface EdgeBehaviour {
  /** RFC 5626 section 3.5.1: answers a double-CRLF ping with a CRLF pong. */
  crlfPong: boolean;
  /** RFC 5626 section 4.2.1 / 5.2: `Require: outbound` in the REGISTER 2xx when the REGISTER asked for it. */
  confirmOutbound: boolean;
  /** RFC 3261 section 10.3 step 7: a shorter REGISTER is refused `423 Interval Too Brief`. */
  minExpiresSeconds: number | undefined;
  /** A nonce is good for one REGISTER: a replay is challenged `stale=true` (RFC 7616 section 3.3). */
  singleUseNonces: boolean;
  /** The granted time also as the Contact's `expires` parameter, or only as an `Expires` header. */
  expiresInContact: boolean;
  /** The digest algorithms challenged with, in the order of the `WWW-Authenticate` headers (RFC 8760). */
  challenges: ReadonlyArray<'SHA-256' | 'MD5'>;
  /** RFC 3262: the INVITE requires reliable provisional responses, and their PRACK. */
  require100rel: boolean;
  /** RFC 4028: the INVITE carries `Session-Expires`, and the service refreshes the session. */
  sessionTimer: boolean;
  /** The INVITE carries an `Expires` header (RFC 3261 section 20.19). */
  inviteExpiresSeconds: number | undefined;
  /** How the INVITE carries the service's SDP. */
  inviteBody: 'sdp' | CarrierInviteBody;
}

/** What a session interval defaults to: RFC 4028 section 4's recommended 1800 s is too long for a test to see. */
export const DEFAULT_SESSION_EXPIRES_SECONDS = 90;

/** The default settings of `profile`. */
export function defaultEdgeSettings(profile: EdgeProfile = 'kamailio'): EdgeSettings {
  return { profile, sessionExpiresSeconds: DEFAULT_SESSION_EXPIRES_SECONDS, carrierInviteBody: 'multipart', refuseEveryNthRefresh: profile === 'carrier-sbc' ? 2 : 0 };
}

/** The behaviour a profile's settings make. */
export function edgeBehaviour(settings: EdgeSettings): EdgeBehaviour {
  const kamailio = settings.profile === 'kamailio';
  const asterisk = settings.profile === 'asterisk';
  const carrier = settings.profile === 'carrier-sbc';
  return {
    crlfPong: kamailio || carrier,
    confirmOutbound: kamailio,
    minExpiresSeconds: carrier ? 3600 : undefined,
    singleUseNonces: carrier,
    expiresInContact: !carrier,
    challenges: asterisk ? ['SHA-256', 'MD5'] : ['MD5'],
    require100rel: asterisk,
    sessionTimer: asterisk,
    inviteExpiresSeconds: carrier ? 60 : undefined,
    inviteBody: carrier ? settings.carrierInviteBody : 'sdp',
  };
}

/** Whether `value` names a profile. */
export function isEdgeProfile(value: unknown): value is EdgeProfile {
  return typeof value === 'string' && (EDGE_PROFILES as readonly string[]).includes(value);
}
