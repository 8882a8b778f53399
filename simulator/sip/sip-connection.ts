import type { WebSocket } from 'ws';
import { Grammar, IncomingRequestMessage, IncomingResponseMessage, LoggerFactory, Parser, UserAgentCore } from 'sip.js/lib/core/index.js';
import { DialogFlows, dialogOfIncomingRequest, dialogOfTargetResponse, readOutgoing, refreshesTarget, sendFailedResponse } from './edge/edge-routing.js';
import { inviteShape } from './edge/edge-invite.js';
import { EdgeState } from './edge/edge-state.js';
import { InviteDialog, type BrowserLeg, type InviteOptions } from './invite-dialog.js';
import { RegistrationHandler, type Binding, type SipAccount } from './sip-registration.js';

/**
 * One SIP over WebSocket connection (RFC 7118) of the simulator: the SIP core speaking over one socket, which
 * hands REGISTERs to the registrar's digest authentication (`RegistrationHandler`) and sends the INVITEs that
 * ring the page's agent (`InviteDialog`). `SipServer` holds the bindings and the endpoint, and is known
 * here only by what a connection tells it ({@link Registrar}): the two files import one way.
 */

/** The registrar's settings, shared by the server and each of its connections. */
export interface SipServerOptions {
  realm: string;
  /** Host name used in Via, Contact and From of what the service sends. */
  host: string;
  lookupAccount(username: string): SipAccount | undefined;
  onRegistrationChange?(sessionId: string): void;
  /** The edge the registrar and the INVITEs speak as (`EdgeState`); default `kamailio`. */
  edge?: EdgeState;
  now?: () => number;
}

/**
 * What a binding reaches its agent through: a WebSocket of the agent's own ({@link SipConnection}), or the
 * simulator's UDP side, where an edge relays every agent's SIP (`SipUdpSide`).
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

/** What a connection tells the registrar (`SipServer`) of the bindings its REGISTERs make and end. */
export interface Registrar {
  addRegistration(registration: Registration): void;
  /** Drops a binding; with a connection given, only when the binding is still that connection's. */
  removeRegistration(sessionId: string, connection?: SipFlow): void;
  /**
   * The connection, open or kept for its calls, whose core `holds` what a message needs (a dialog, a client
   * transaction), when `connection` itself does not: the service a real edge routes a request in a dialog to.
   */
  holder(connection: SipConnection, holds: (other: SipConnection) => boolean): SipConnection | undefined;
  /** A closed connection kept for its calls has none left up: it may be forgotten. */
  forget(connection: SipConnection): void;
}

/**
 * The SIP core's configuration for one connection: it sends as the simulator's host, through `send` (the
 * connection's own socket, or the flow a dialog's target came on: {@link SipConnection}).
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
    supportedOptionTags: ['outbound', '100rel', 'timer'],
    supportedOptionTagsResponse: ['outbound', '100rel', 'timer'],
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

/** The edge of a registrar given none: the default profile, never changed. */
const DEFAULT_EDGE = new EdgeState();

/** One WebSocket and the SIP core speaking over it. */
export class SipConnection implements SipFlow {
  readonly core: UserAgentCore;
  private readonly registration: RegistrationHandler;
  /** INVITE dialogs of this socket still up or ending: they learn of it when the socket closes. */
  private readonly dialogs = new Set<InviteDialog>();
  /** The `stall-sip-socket` fault: the socket stays open, and nothing goes in or out of it any more. */
  stalled = false;
  /** Where this core's dialogs' requests go when their target came on another connection, and its responses' ways back. */
  private readonly flows = new DialogFlows<SipConnection>();

  constructor(
    readonly socket: WebSocket,
    private readonly server: Registrar,
    private readonly options: SipServerOptions,
  ) {
    this.registration = new RegistrationHandler(options, {
      bind: (binding) => server.addRegistration({ ...binding, connection: this }),
      unbind: (sessionId) => server.removeRegistration(sessionId, this),
    });
    this.core = new UserAgentCore(coreConfiguration((message) => this.send(message), options.host), { onRegister: (request) => this.registration.handle(request) });
    socket.on('message', (data, isBinary) => this.receive(isBinary ? data.toString() : String(data)));
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /**
   * Sends what the core says as an edge routes it (`readOutgoing`): a request in a dialog down the flow its
   * remote target came on, a response down the connection its request came on, anything else on this socket.
   * A stalled flow swallows it, as a dead path does; a closed one fails the request with the edge's `477`, as
   * Kamailio answers a relay it cannot send.
   */
  private send(message: string): void {
    const outgoing = readOutgoing(message);
    const flow = (outgoing.kind === 'request' ? this.flows.targetOf(outgoing.dialogId) : outgoing.kind === 'response' ? this.flows.arrivalOf(outgoing.branch) : undefined) ?? this;
    if (flow.open) {
      if (!flow.stalled) flow.socket.send(message);
      return;
    }
    if (outgoing.kind !== 'request' || outgoing.method === 'ACK') return;
    const failed = Parser.parseMessage(sendFailedResponse(message), this.core.loggerFactory.getLogger('sim.parser'));
    // After the transaction that sends it is in place, as a response from the wire would come.
    if (failed instanceof IncomingResponseMessage) setImmediate(() => this.core.receiveIncomingResponseFromTransport(failed));
  }

  /** Whether a request of the dialog can still go towards the page: the flow of its target is open (stalled or not). */
  private reachable(dialogId: string | undefined): boolean {
    return (this.flows.targetOf(dialogId) ?? this).open;
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
      // OpenSIPS, Asterisk and FreeSWITCH answer none on a WebSocket (the `no-crlf-pong` and `asterisk` profiles).
      const pong = (this.options.edge ?? DEFAULT_EDGE).behaviour().crlfPong;
      if (pong && /^(\r\n\r\n)+$/.test(text) && this.socket.readyState === this.socket.OPEN) this.socket.send('\r\n');
      return;
    }
    const logger = this.core.loggerFactory.getLogger('sim.parser');
    const message = Parser.parseMessage(text, logger);
    if (message instanceof IncomingRequestMessage) this.receiveRequest(message);
    else if (message instanceof IncomingResponseMessage) this.receiveResponse(message);
  }

  /**
   * A request in a dialog goes to the core that holds the dialog, whichever socket it came on (the service an
   * edge routes it to by its Request-URI); a target refresh moves the dialog's target to this socket.
   */
  private receiveRequest(message: IncomingRequestMessage): void {
    const dialogId = dialogOfIncomingRequest(message);
    const holder = (dialogId && this.server.holder(this, (other) => other.core.dialogs.has(dialogId))) || this;
    if (holder !== this) holder.flows.arrived(message.viaBranch, this);
    if (dialogId && refreshesTarget(message)) holder.learnTarget(dialogId, this);
    holder.core.receiveIncomingRequestFromTransport(message);
  }

  /** A response goes to the core whose transaction sent its request; a 2xx to our INVITE or UPDATE moves the target. */
  private receiveResponse(message: IncomingResponseMessage): void {
    const client = message.viaBranch + message.method;
    const holder = this.server.holder(this, (other) => other.core.userAgentClients.has(client)) ?? this;
    const dialogId = dialogOfTargetResponse(message);
    if (dialogId) holder.learnTarget(dialogId, this);
    holder.core.receiveIncomingResponseFromTransport(message);
  }

  /** The page's latest target for a dialog of this core came on `flow`. */
  private learnTarget(dialogId: string, flow: SipConnection): void {
    if (flow === this && this.flows.targetOf(dialogId) === undefined) return;
    this.flows.learnTarget(dialogId, flow);
  }

  /** Sends the INVITE that rings the agent, naming its call in `X-Browser-Call-Id` or `X-Call-Id` (docs/simulator.md). */
  invite(registration: Registration, options: InviteOptions): BrowserLeg {
    const target = Grammar.URIParse(registration.contact);
    const to = Grammar.URIParse(`sip:${registration.username}@${this.options.host}`);
    const from = Grammar.URIParse(`sip:${options.from.replace(/^\+/, '')}@${this.options.host}`);
    if (!target || !to || !from) throw new Error('cannot address the registered agent');
    const edge = this.options.edge ?? DEFAULT_EDGE;
    const shape = inviteShape(edge.behaviour(), edge.settings, options.offerSdp, options.handlers.onOffer !== undefined);
    const request = this.core.makeOutgoingRequestMessage(
      'INVITE', target, from, to, {},
      [`${options.callIdHeader}: ${options.callId}`, ...(options.extraHeaders ?? []), ...shape.extraHeaders, `Contact: <sip:${this.options.host};transport=ws>`],
      shape.body,
    );
    for (const dialog of this.dialogs) if (dialog.over) this.dialogs.delete(dialog);
    const dialog = new InviteDialog(this.core, request, options.handlers, (dialogId) => this.reachable(dialogId), () => this.forgetIfIdle(), options.offerSdp, shape.rules);
    this.dialogs.add(dialog);
    return dialog;
  }

  /**
   * A socket closed, this one or another: the legs of this core whose dialog's target is on it settle an ending
   * at once instead of waiting out their own timer, and legs still up learn that their transport is gone.
   */
  flowClosed(flow: SipConnection): void {
    for (const dialog of this.dialogs) {
      if ((this.flows.targetOf(dialog.dialogId) ?? this) !== flow) continue;
      dialog.settleEnding();
      dialog.transportLost();
    }
  }

  /**
   * This socket closed. Every transaction and dialog is dropped with the core (their timers, RFC 6026 timer M
   * keeps an answered INVITE's transaction 32 s, would otherwise outlive the connection), except while a call
   * is up: its dialog is the service's, which a real edge still routes the page's requests to (a re-INVITE from
   * the page's new socket moves its target there). Returns whether the connection is kept for them.
   */
  closed(): boolean {
    this.flowClosed(this);
    if ([...this.dialogs].some((dialog) => dialog.up)) return true;
    this.dispose();
    return false;
  }

  /** Drops every transaction and dialog (the simulator stops, or a kept connection's last call ended). */
  dispose(): void {
    for (const dialog of this.dialogs) dialog.dispose();
    this.dialogs.clear();
    this.flows.clear();
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
