import type { WebSocket } from 'ws';
import { Grammar, IncomingRequestMessage, IncomingResponseMessage, LoggerFactory, Parser, UserAgentCore } from 'sip.js/lib/core/index.js';
import { InviteDialog, type BrowserLeg, type InviteOptions } from './invite-dialog.js';
import { RegistrationHandler, type Binding, type SipAccount } from './sip-registration.js';

/**
 * One SIP over WebSocket connection (RFC 7118) of the simulator: the SIP core speaking over one socket, which
 * hands REGISTERs to the registrar's digest authentication (sip-registration.ts) and sends the INVITEs that
 * ring the page's agent (invite-dialog.ts). sip-server.ts holds the bindings and the endpoint, and is known
 * here only by what a connection tells it ({@link Registrar}): the two files import one way.
 */

/** The registrar's settings, shared by the server and each of its connections. */
export interface SipServerOptions {
  realm: string;
  /** Host name used in Via, Contact and From of what the service sends. */
  host: string;
  lookupAccount(username: string): SipAccount | undefined;
  onRegistrationChange?(sessionId: string): void;
  now?: () => number;
}

/**
 * What a binding reaches its agent through: a WebSocket of the agent's own ({@link SipConnection}), or the
 * simulator's UDP side, where an edge relays every agent's SIP (sip-udp.ts).
 */
export interface SipFlow {
  /** Sends the INVITE that rings the registered agent. */
  invite(registration: Registration, options: InviteOptions): BrowserLeg;
  pruneNonces(now: number): void;
  /** The `stall-sip-socket` fault: the registration's way to the agent goes silent without closing. */
  stall(registration: Registration): void;
  /** The `close-sip-socket` fault: the registration's connection to the agent closes. */
  terminate(registration: Registration): void;
}

/** A live binding of a session's agent to a WebSocket, or to a flow an edge relays over UDP. */
export interface Registration extends Binding {
  connection: SipFlow;
  /**
   * The flow the binding came over when several agents share one connection (an edge's, by its `Path`), so the
   * registration log counts the agent's sockets rather than the edge's one.
   */
  flow?: string;
}

/** What a connection tells the registrar (sip-server.ts) of the bindings its REGISTERs make and end. */
export interface Registrar {
  addRegistration(registration: Registration): void;
  /** Drops a binding; with a connection given, only when the binding is still that connection's. */
  removeRegistration(sessionId: string, connection?: SipFlow): void;
  /**
   * The connection of the same agent (RFC 5626: the same `+sip.instance` of the same session) that `holds`
   * what a message needs, when `connection` itself does not; or, without `holds`, that agent's newest open flow.
   */
  sameAgent(connection: SipConnection, holds?: (other: SipConnection) => boolean): SipConnection | undefined;
  /** A closed connection kept for its calls has none left up: it may be forgotten. */
  forget(connection: SipConnection): void;
}

/**
 * The SIP core's configuration for one connection: it sends as the simulator's host, through `send` (the
 * connection's own socket, or the agent's newest flow: {@link SipConnection}).
 */
function coreConfiguration(send: (message: string) => void, host: string): ConstructorParameters<typeof UserAgentCore>[0] {
  const contactUri = Grammar.URIParse(`sip:${host};transport=ws`);
  if (!contactUri) throw new Error(`bad SIP host ${host}`);
  const loggerFactory = new LoggerFactory();
  loggerFactory.builtinEnabled = false;
  return {
    aor: contactUri,
    // A contact without a user part: REGISTER's Request-URI (sip:host) and in-dialog requests both match it.
    contact: { pubGruu: undefined, tempGruu: undefined, uri: contactUri, toString: () => `<${contactUri}>` },
    displayName: '',
    loggerFactory,
    hackViaTcp: false,
    routeSet: [],
    sipjsId: 'sim',
    supportedOptionTags: ['outbound'],
    supportedOptionTagsResponse: ['outbound'],
    userAgentHeaderFieldValue: 'voice-browser-simulator',
    viaForceRport: false,
    viaHost: host,
    authenticationFactory: () => undefined,
    transportAccessor: () => ({
      protocol: 'WS',
      send: async (message: string) => send(message),
    }),
  };
}

/** One WebSocket and the SIP core speaking over it. */
export class SipConnection implements SipFlow {
  readonly core: UserAgentCore;
  private readonly registration: RegistrationHandler;
  /** INVITE dialogs of this socket still up or ending: they learn of it when the socket closes. */
  private readonly dialogs = new Set<InviteDialog>();
  /** The `stall-sip-socket` fault: the socket stays open, and nothing goes in or out of it any more. */
  private stalled = false;
  /** The agent this socket's REGISTER bound: its session and, registered for outbound, its instance. */
  private agent: { sessionId: string; instance?: string } | undefined;

  constructor(
    readonly socket: WebSocket,
    private readonly server: Registrar,
    private readonly options: SipServerOptions,
  ) {
    this.registration = new RegistrationHandler(options, {
      bind: (binding) => {
        this.agent = { sessionId: binding.sessionId, ...(binding.instance ? { instance: binding.instance } : {}) };
        server.addRegistration({ ...binding, connection: this });
      },
      unbind: (sessionId) => server.removeRegistration(sessionId, this),
    });
    this.core = new UserAgentCore(coreConfiguration((message) => this.send(message), options.host), { onRegister: (request) => this.registration.handle(request) });
    socket.on('message', (data, isBinary) => this.receive(isBinary ? data.toString() : String(data)));
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** Whether `other` is a flow of the same agent registered for outbound (RFC 5626 section 4.2). */
  sameAgentAs(other: SipConnection): boolean {
    return !!this.agent?.instance && this.agent.instance === other.agent?.instance && this.agent.sessionId === other.agent.sessionId;
  }

  /**
   * Sends on this connection's own socket while it is open and not stalled; else down the newest flow of the
   * same agent when it registered for outbound, so a dialog begun on the old socket goes on over the new one
   * (RFC 5626 section 5.3). With neither, a stalled socket swallows what is sent, as a dead path does, and a
   * closed one refuses it: a binding without outbound lives with its socket.
   */
  private send(message: string): void {
    if (this.open && !this.stalled) return this.socket.send(message);
    const flow = this.server.sameAgent(this);
    if (flow) return flow.socket.send(message);
    if (!this.open) throw new Error('SIP socket closed');
  }

  /** Whether a request can still go towards the page: its socket is open (stalled or not), or it has a newer flow. */
  private reachable(): boolean {
    return this.open || this.server.sameAgent(this) !== undefined;
  }

  /**
   * Stalls the socket, as a network path that dies without a FIN or RST: it stays open, every frame that
   * comes is ignored (keep-alive pings included) and nothing is sent. Its reading stops too, so not even the
   * page's close frame is answered: a page that waits for the closing handshake waits as it would on a dead
   * path, until its own timeout or the simulator's stop.
   */
  stall(): void {
    this.stalled = true;
    this.socket.pause();
  }

  /** Closes the socket at once, as a network path that resets. */
  terminate(): void {
    this.socket.terminate();
  }

  private receive(text: string): void {
    if (this.stalled) return;
    if (text.trim() === '') {
      // RFC 5626 section 3.5.1: a double-CRLF ping is answered with a single CRLF pong; it is not a SIP message.
      if (/^(\r\n\r\n)+$/.test(text) && this.socket.readyState === this.socket.OPEN) this.socket.send('\r\n');
      return;
    }
    const logger = this.core.loggerFactory.getLogger('sim.parser');
    const message = Parser.parseMessage(text, logger);
    // A request in a dialog, or a response to a request, that an earlier flow of the same agent holds goes to it.
    if (message instanceof IncomingRequestMessage) {
      const dialog = message.toTag ? message.callId + message.toTag + message.fromTag : undefined;
      const holder = dialog ? this.server.sameAgent(this, (other) => other.core.dialogs.has(dialog)) : undefined;
      (holder ?? this).core.receiveIncomingRequestFromTransport(message);
    } else if (message instanceof IncomingResponseMessage) {
      const client = message.viaBranch + message.method;
      const holder = this.server.sameAgent(this, (other) => other.core.userAgentClients.has(client));
      (holder ?? this).core.receiveIncomingResponseFromTransport(message);
    }
  }

  /** Sends the INVITE that rings the agent, naming its call in `X-Browser-Call-Id` or `X-Call-Id` (DESIGN.md). */
  invite(registration: Registration, options: InviteOptions): BrowserLeg {
    const target = Grammar.URIParse(registration.contact);
    const to = Grammar.URIParse(`sip:${registration.username}@${this.options.host}`);
    const from = Grammar.URIParse(`sip:${options.from.replace(/^\+/, '')}@${this.options.host}`);
    if (!target || !to || !from) throw new Error('cannot address the registered agent');
    const request = this.core.makeOutgoingRequestMessage(
      'INVITE', target, from, to, {},
      [`${options.callIdHeader}: ${options.callId}`, ...(options.extraHeaders ?? []), `Contact: <sip:${this.options.host};transport=ws>`],
      { contentDisposition: 'session', contentType: 'application/sdp', content: options.offerSdp },
    );
    for (const dialog of this.dialogs) if (dialog.over) this.dialogs.delete(dialog);
    const dialog = new InviteDialog(this.core, request, options.handlers, () => this.reachable(), () => this.forgetIfIdle());
    this.dialogs.add(dialog);
    return dialog;
  }

  /**
   * The socket closed. Legs still ending settle at once instead of waiting out their own timer; legs still up
   * learn that their transport is gone. Every transaction and dialog is dropped with the core (their timers,
   * RFC 6026 timer M keeps an answered INVITE's transaction 32 s, would otherwise outlive the connection),
   * except that an agent registered for outbound keeps the calls that are up: it may come back on a new flow,
   * and their BYE and in-dialog requests go that way. Returns whether the connection is kept for them.
   */
  closed(): boolean {
    for (const dialog of this.dialogs) dialog.settleEnding();
    for (const dialog of this.dialogs) dialog.transportLost();
    if (this.agent?.instance && [...this.dialogs].some((dialog) => dialog.up)) return true;
    this.dispose();
    return false;
  }

  /** Drops every transaction and dialog (the simulator stops, or a kept connection's last call ended). */
  dispose(): void {
    this.dialogs.clear();
    this.core.dispose();
  }

  /** A closed connection kept for its calls, once none is up, is disposed and forgotten. */
  private forgetIfIdle(): void {
    if (this.open || [...this.dialogs].some((dialog) => dialog.up)) return;
    this.dispose();
    this.server.forget(this);
  }

  /** Nonces are per connection and forgotten after 5 minutes, so a chatty page cannot grow them. */
  pruneNonces(now: number): void {
    this.registration.pruneNonces(now);
  }
}
