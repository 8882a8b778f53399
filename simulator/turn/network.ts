import { HttpError } from '../../contract/http-error.js';
import { CoturnMissingError, startCoturn, type RunningCoturn } from './coturn.js';
import { startDelayRelay, type DelayRelay } from './delay-relay.js';
import type { NetworkProfile, SessionIce, SessionIceServer, SimulatorNetwork, SimulatorNetworkInput } from './network-profile.js';
import { turnCredentials } from './turn-credentials.js';

/**
 * The network profiles the service issues its sessions' ICE configuration for (docs/network.md), and the TURN
 * server behind them: coturn, started the first time a profile needs it and stopped with the simulator.
 */

/** How late a `slow-turn` server's every datagram arrives, each way: a server across an ocean. */
export const SLOW_TURN_DELAY_MS = 100;

/** How long past its session's expiry a session's TURN credentials stay valid: a day. */
export const TURN_CREDENTIAL_GRACE_MS = 24 * 60 * 60 * 1000;

/** What the profiles need: where the TURN server may relay to, and its binary. */
export interface NetworkOptions {
  /** The addresses the calls' media offers (loopback's 127.0.0.1 among them): the TURN server relays to these alone. */
  peers: readonly string[];
  turnserverPath?: string;
}

/** The URLs of each TURN-using profile: UDP and TCP on one port, TLS on another (RFC 7065 URIs). */
function urlsOf(profile: Exclude<NetworkProfile, 'open'>, turn: RunningCoturn, slowPort: number | undefined): string[] {
  const udp = `turn:${turn.host}:${turn.port}?transport=udp`;
  const tcp = `turn:${turn.host}:${turn.port}?transport=tcp`;
  const tls = `turns:${turn.host}:${turn.tlsPort}?transport=tcp`;
  if (profile === 'turn-udp') return [udp];
  if (profile === 'turn-tcp') return [tcp];
  if (profile === 'turn-tls') return [tls];
  if (profile === 'slow-turn') return [`turn:${turn.host}:${slowPort}?transport=udp`];
  return [udp, tcp, tls];
}

/** The profiles in force and the TURN server they use. */
export class NetworkProfiles {
  private profile: NetworkProfile = 'open';
  private readonly subjects = new Map<string, NetworkProfile>();
  private turn: RunningCoturn | undefined;
  private starting: Promise<RunningCoturn> | undefined;
  private slow: DelayRelay | undefined;
  private slowStarting: Promise<DelayRelay> | undefined;

  constructor(private readonly options: NetworkOptions) {}

  /** Sets a profile; a TURN-using one starts the TURN server first, once. `503 turn_unavailable` when there is none. */
  async set(input: SimulatorNetworkInput): Promise<SimulatorNetwork> {
    if (input.profile !== 'open') await this.ensureTurn(input.profile === 'slow-turn');
    if (input.externalSubject === undefined) this.profile = input.profile;
    else if (input.profile === this.profile) this.subjects.delete(input.externalSubject);
    else this.subjects.set(input.externalSubject, input.profile);
    return this.view();
  }

  /** The profiles in force, and where the TURN server listens once started. */
  view(): SimulatorNetwork {
    const turn = this.turn;
    return {
      profile: this.profile,
      subjects: Object.fromEntries(this.subjects),
      ...(turn && {
        turn: { udp: `${turn.host}:${turn.port}`, tcp: `${turn.host}:${turn.port}`, tls: `${turn.host}:${turn.tlsPort}`, ...(this.slow && { slowUdp: `${turn.host}:${this.slow.port}` }) },
        certificatePem: turn.certificatePem,
      }),
    };
  }

  /**
   * The ICE configuration of a session of `externalSubject` issued now: TURN credentials for `user` valid a day
   * past the session's expiry (a renewed session gets new ones), or none for `open`.
   */
  iceFor(externalSubject: string, user: string, expiresAtMs: number): SessionIce {
    const profile = this.subjects.get(externalSubject) ?? this.profile;
    const turn = this.turn;
    if (profile === 'open' || !turn) return { iceServers: [] };
    // A call accepted before the session expired runs on past it (service interface 3.2), and coturn checks the
    // username's expiry on each Refresh and CreatePermission: the TURN REST draft's recommended lifetime of a day
    // (draft-uberti-behave-turn-rest section 2.2) beyond the session keeps such a call's relay.
    const validUntilMs = expiresAtMs + TURN_CREDENTIAL_GRACE_MS;
    const credentials = turnCredentials(turn.secret, user, validUntilMs);
    // Signed with a secret the server does not hold: its Allocate answers 401 (RFC 8656 section 7.1) every time.
    if (profile === 'turn-refused') credentials.credential = turnCredentials(`not-${turn.secret}`, user, validUntilMs).credential;
    const server: SessionIceServer = { urls: urlsOf(profile, turn, this.slow?.port), ...credentials };
    return { iceServers: [server], iceTransportPolicy: 'relay' };
  }

  /** Back to `open` for everyone; the TURN server keeps running for the next profile that needs it. */
  reset(): void {
    this.profile = 'open';
    this.subjects.clear();
  }

  /** Stops the TURN server and its delaying relay. */
  async close(): Promise<void> {
    this.reset();
    const turn = await this.starting?.catch(() => undefined);
    // A relay still starting is closed once started, not left listening.
    const slow = await this.slowStarting?.catch(() => undefined);
    this.starting = undefined;
    this.slowStarting = undefined;
    this.turn = undefined;
    this.slow = undefined;
    await slow?.close();
    await turn?.stop();
  }

  private async ensureTurn(slow: boolean): Promise<void> {
    this.starting ??= startCoturn({ binary: this.options.turnserverPath, allowedPeers: this.options.peers });
    try {
      this.turn = await this.starting;
    } catch (error) {
      this.starting = undefined;
      if (error instanceof CoturnMissingError) throw new HttpError(503, error.code, error.message);
      throw error;
    }
    if (!slow) return;
    const turn = this.turn;
    // One relay however many requests ask for it at once: a second start would leave the first listening.
    this.slowStarting ??= startDelayRelay(turn.host, { host: turn.host, port: turn.port }, SLOW_TURN_DELAY_MS);
    try {
      this.slow = await this.slowStarting;
    } catch (error) {
      this.slowStarting = undefined;
      throw error;
    }
  }
}
