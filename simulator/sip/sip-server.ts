import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { BrowserLeg, InviteOptions } from './invite-dialog.js';
import type { RegistrationRecord } from '../http/control-client.js';
import { EdgeState } from './edge/edge-state.js';
import { RegistrationLog } from './registration-log.js';
import { SipConnection, type Registration, type SipFlow, type SipServerOptions } from './sip-connection.js';
import { SipUdpSide } from './sip-udp.js';

/**
 * SIP over WebSocket (RFC 7118) for the simulator: a registrar with digest authentication and the service
 * side of the INVITE dialogs that ring the page's agent.
 *
 * @remarks
 * Each WebSocket gets its own SIP.js `UserAgentCore`, so transactions, dialogs, ACK and BYE handling come
 * from the same well-tested grammar and state machines the page runs, and every message of a connection
 * goes back down that connection (RFC 5626 flow semantics: a binding lives as long as its socket). It speaks as
 * the edge its profile names (`EDGE_PROFILES`) and routes in-dialog requests as a real edge does
 * (`DialogFlows`): when a socket closes, its calls that are up stay, and their requests go down the flow the
 * page's latest target for the dialog came on.
 */

export type { BrowserLeg, BrowserLegHandlers, InviteOptions, LegEnd } from './invite-dialog.js';
export type { Registration, SipFlow, SipServerOptions } from './sip-connection.js';
export type { SipAccount } from './sip-registration.js';

/** Refuses a WebSocket upgrade as an edge that is down behind its load balancer does. */
function refuseUpgrade(socket: Duplex): void {
  socket.once('finish', () => socket.destroy());
  socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
}

/** The registrar and WebSocket endpoint at `/sip`; each socket's SIP is a {@link SipConnection}. */
export class SipServer {
  private readonly wss = new WebSocketServer({
    noServer: true,
    // RFC 7118 section 4: the client offers the "sip" subprotocol and the server must select it.
    handleProtocols: (protocols) => (protocols.has('sip') ? 'sip' : false),
  });
  private readonly registrations = new Map<string, Registration>();
  private readonly connections = new Set<SipConnection>();
  /** Closed connections of agents registered for outbound, kept while a call of theirs is up. */
  private readonly kept = new Set<SipConnection>();
  private readonly log = new RegistrationLog();
  private udp: SipUdpSide | undefined;
  private edgeWsUrl: string | undefined;

  /** The edge it speaks as: its profile for what comes next, and its restarts. */
  readonly edge: EdgeState;

  constructor(private readonly options: SipServerOptions) {
    this.edge = options.edge ?? new EdgeState();
  }

  /** Takes over an HTTP upgrade request for `/sip`; while the edge restarts, refuses it `503`. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.edge.restarting()) return refuseUpgrade(socket);
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new SipConnection(ws, this, { ...this.options, edge: this.edge });
      this.connections.add(connection);
      ws.on('close', () => {
        this.connections.delete(connection);
        for (const other of [...this.connections, ...this.kept]) other.flowClosed(connection);
        if (connection.closed()) this.kept.add(connection);
        for (const registration of [...this.registrations.values()]) {
          if (registration.connection === connection) this.removeRegistration(registration.sessionId, connection);
        }
      });
    });
  }

  /** The session's live (unexpired) registration, if any. */
  registration(sessionId: string): Registration | undefined {
    const registration = this.registrations.get(sessionId);
    if (registration && registration.expiresAt <= this.now()) {
      this.removeRegistration(sessionId, registration.connection);
      return undefined;
    }
    return registration;
  }

  /** What the registrar did for the session so far: whether it is registered now, and how long it was not. */
  registrationRecord(sessionId: string): RegistrationRecord {
    return this.log.record(sessionId, this.now());
  }

  /** Forgets every session's registration record. */
  forgetRecords(): void {
    this.log.clear();
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  addRegistration(registration: Registration): void {
    this.registrations.set(registration.sessionId, registration);
    this.log.bound(registration.sessionId, registration.flow ?? registration.connection, this.now(), registration.expiresAt);
    registration.connection.pruneNonces(this.now());
    this.options.onRegistrationChange?.(registration.sessionId);
  }

  /** Drops a binding; with a connection given, only when the binding is still that connection's. */
  removeRegistration(sessionId: string, connection?: SipFlow): void {
    const registration = this.registrations.get(sessionId);
    if (!registration || (connection && registration.connection !== connection)) return;
    this.registrations.delete(sessionId);
    this.log.dropped(sessionId, this.now());
    this.options.onRegistrationChange?.(sessionId);
  }

  holder(connection: SipConnection, holds: (other: SipConnection) => boolean): SipConnection | undefined {
    // Asked for every message a connection receives: the connection that holds what it needs answers first.
    if (holds(connection)) return undefined;
    return [...this.connections, ...this.kept].find((other) => other !== connection && holds(other));
  }

  forget(connection: SipConnection): void {
    this.kept.delete(connection);
  }

  /** Rings the session's registered agent; undefined when it is not registered. */
  invite(sessionId: string, options: InviteOptions): BrowserLeg | undefined {
    const registration = this.registration(sessionId);
    return registration?.connection.invite(registration, options);
  }

  /**
   * Listens for SIP over UDP on 127.0.0.1:`port` (0: a free one), where the edge at `edgeUrl` relays its agents'
   * SIP (`SipUdpSide`); resolves with the port. The WebSocket endpoint stays as it is.
   */
  async listenUdp(port: number, edgeUrl?: string): Promise<number> {
    this.udp = new SipUdpSide(this, { ...this.options, edge: this.edge });
    this.edgeWsUrl = edgeUrl;
    return this.udp.listen(port);
  }

  /** The WebSocket URL of the edge in front of the UDP side, where the pages connect; undefined without one. */
  get edgeUrl(): string | undefined {
    return this.edgeWsUrl;
  }

  /**
   * The edge restarts for `ms`: every SIP socket drops at once with no closing handshake, their bindings with
   * them, and new WebSocket upgrades are refused until it is back. Calls that are up keep their media.
   */
  restartEdge(ms: number): void {
    this.edge.restart(ms);
    for (const connection of this.connections) connection.socket.terminate();
  }

  /** Closes every socket. */
  close(): void {
    this.udp?.close();
    for (const connection of this.connections) {
      connection.socket.terminate();
      connection.dispose();
    }
    for (const connection of this.kept) connection.dispose();
    this.kept.clear();
    this.registrations.clear();
    this.wss.close();
  }
}
