/**
 * The network profiles a browser session's ICE configuration can be issued for, apart from the TURN server's
 * code so the package's published types name them without Node's.
 */

/**
 * The profiles, the first the default. `open`: no ICE servers, host candidates (the loopback a test runs on).
 * `relay-only`: the TURN server over UDP, TCP and TLS, and `iceTransportPolicy: 'relay'`. `turn-udp`, `turn-tcp`,
 * `turn-tls`: relay only, through that one transport's URL. `slow-turn`: relay only over UDP through a server
 * whose every answer comes late, as a distant one's. `turn-refused`: relay only, with credentials the TURN server
 * refuses.
 */
export const NETWORK_PROFILES = ['open', 'relay-only', 'turn-udp', 'turn-tcp', 'turn-tls', 'slow-turn', 'turn-refused'] as const;

/** One of {@link NETWORK_PROFILES}. */
export type NetworkProfile = (typeof NETWORK_PROFILES)[number];

/** One ICE server as a session carries it (webrtc-pc `RTCIceServer`). */
export interface SessionIceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

/** A session's ICE configuration (webrtc-pc `RTCConfiguration`'s names): its servers, and `relay` when only TURN may carry the media. */
export interface SessionIce {
  iceServers: SessionIceServer[];
  iceTransportPolicy?: 'relay';
}

/** The network profiles in force: the one every new session gets, and those of subjects given their own. */
export interface SimulatorNetwork {
  profile: NetworkProfile;
  subjects: Record<string, NetworkProfile>;
  /** The TURN server's addresses, once a profile started it: `turn:` (UDP and TCP) and `turns:` (TLS) host:port. */
  turn?: { udp: string; tcp: string; tls: string; slowUdp?: string };
  /** The certificate the TURN server's TLS presents (PEM), for a test browser told to trust it. */
  certificatePem?: string;
}

/** What `PUT /__sim/network` takes: a profile, for every new session or only for one subject's. */
export interface SimulatorNetworkInput {
  profile: NetworkProfile;
  /** Only this subject's new sessions; unset, every new session without a subject's own. */
  externalSubject?: string;
}
