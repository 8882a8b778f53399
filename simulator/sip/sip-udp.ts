import { createSocket, type Socket } from 'node:dgram';
import { Grammar, IncomingRequestMessage, IncomingResponseMessage, LoggerFactory, Parser, UserAgentCore } from 'sip.js/lib/core/index.js';
import { InviteDialog, type BrowserLeg, type InviteOptions } from './invite-dialog.js';
import type { Registrar, Registration, SipFlow, SipServerOptions } from './sip-connection.js';
import { RegistrationHandler } from './sip-registration.js';
import { requestDestination, responseDestination, stampVia } from './sip-udp-routing.js';

/**
 * The simulator's SIP over UDP (RFC 3261 section 18), for an edge in front of it: a SIP proxy such as Kamailio
 * takes the pages' WebSockets and relays their SIP here, as a service's own edge does.
 *
 * @remarks
 * One SIP.js `UserAgentCore` on one socket serves every agent: the edge is the one peer, and its relayed REGISTERs
 * carry a `Path` (RFC 3327) that is kept with the binding and becomes the route set of the INVITE that rings the
 * agent (section 5.3), so the INVITE goes back through the edge that holds the page's connection. Responses go to
 * the request's Via (`received`, `rport`: RFC 3261 section 18.2.2, RFC 3581); requests to their first Route,
 * else their Request-URI. It listens on 127.0.0.1 only, and sends to IP addresses only. The core retransmits
 * nothing over UDP (SIP.js was written for reliable transports): on loopback nothing is lost.
 */
export class SipUdpSide implements SipFlow {
  private readonly socket: Socket = createSocket('udp4');
  private core: UserAgentCore | undefined;
  private port = 0;
  private readonly registration: RegistrationHandler;

  constructor(
    private readonly server: Registrar,
    private readonly options: SipServerOptions,
  ) {
    this.registration = new RegistrationHandler(options, {
      bind: (binding) => server.addRegistration({ ...binding, connection: this, flow: binding.path?.[0] ?? binding.contact }),
      unbind: (sessionId) => server.removeRegistration(sessionId, this),
    });
  }

  /** Binds 127.0.0.1:`port` (0: a free one) and starts the SIP core on it; resolves with the port. */
  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.bind(port, '127.0.0.1', () => resolve());
    });
    this.port = this.socket.address().port;
    this.core = new UserAgentCore(this.configuration(), { onRegister: (request) => this.registration.handle(request) });
    this.socket.on('message', (data, remote) => this.receive(data.toString(), { address: remote.address, port: remote.port }));
    // A datagram that could not be sent fails its transaction; the socket itself stays up for the other agents.
    this.socket.on('error', () => undefined);
    return this.port;
  }

  /** The simulator's own URI on this side: what its Contact says, and what in-dialog requests come back to. */
  private get uri(): string {
    return `sip:127.0.0.1:${this.port}`;
  }

  private configuration(): ConstructorParameters<typeof UserAgentCore>[0] {
    const uri = Grammar.URIParse(this.uri);
    if (!uri) throw new Error(`bad SIP URI ${this.uri}`);
    const loggerFactory = new LoggerFactory();
    loggerFactory.builtinEnabled = false;
    return {
      aor: uri,
      // A contact without a user part: REGISTER's Request-URI (sip:host) and in-dialog requests both match it.
      contact: { pubGruu: undefined, tempGruu: undefined, uri, toString: () => `<${uri}>` },
      displayName: '',
      loggerFactory,
      hackViaTcp: false,
      routeSet: [],
      sipjsId: 'sim',
      supportedOptionTags: ['path'],
      supportedOptionTagsResponse: ['path'],
      userAgentHeaderFieldValue: 'voice-browser-simulator',
      // RFC 3581: the edge answers to the port the request came from, whatever the Via says.
      viaForceRport: true,
      viaHost: `127.0.0.1:${this.port}`,
      authenticationFactory: () => undefined,
      transportAccessor: () => ({ protocol: 'UDP', send: async (message: string) => this.send(message) }),
    };
  }

  private async send(message: string): Promise<void> {
    const to = message.startsWith('SIP/2.0 ') ? responseDestination(message) : requestDestination(message);
    await new Promise<void>((resolve, reject) => this.socket.send(message, to.port, to.address, (error) => (error ? reject(error) : resolve())));
  }

  private receive(text: string, source: { address: string; port: number }): void {
    const core = this.core;
    // RFC 5626 section 4.4.2 keep-alives over UDP are STUN, and a bare CRLF is no SIP message: neither is ours.
    if (!core || text.trim() === '') return;
    const logger = core.loggerFactory.getLogger('sim.parser');
    const message = Parser.parseMessage(text.startsWith('SIP/2.0 ') ? text : stampVia(text, source), logger);
    if (message instanceof IncomingRequestMessage) core.receiveIncomingRequestFromTransport(message);
    else if (message instanceof IncomingResponseMessage) core.receiveIncomingResponseFromTransport(message);
  }

  /**
   * Sends the INVITE that rings the agent: to its registered contact, through the route set its REGISTER's Path
   * gave (RFC 3327 section 5.3), naming its call in `X-Browser-Call-Id` or `X-Call-Id` (docs/simulator.md).
   */
  invite(registration: Registration, options: InviteOptions): BrowserLeg {
    const core = this.requireCore();
    const target = Grammar.URIParse(registration.contact);
    const to = Grammar.URIParse(`sip:${registration.username}@${this.options.host}`);
    const from = Grammar.URIParse(`sip:${options.from.replace(/^\+/, '')}@${this.options.host}`);
    if (!target || !to || !from) throw new Error('cannot address the registered agent');
    const request = core.makeOutgoingRequestMessage(
      'INVITE', target, from, to, { routeSet: registration.path ?? [] },
      [`${options.callIdHeader}: ${options.callId}`, ...(options.extraHeaders ?? []), `Contact: <${this.uri}>`],
      { contentDisposition: 'session', contentType: 'application/sdp', content: options.offerSdp },
    );
    // The edge holds the page's connection: while the simulator listens, the agent is as reachable as the edge says.
    return new InviteDialog(core, request, options.handlers, () => true);
  }

  /**
   * The `close-sip-socket` fault behind an edge: the page's WebSocket is the edge's, so the simulator asks the edge
   * to close it, with an OPTIONS along the binding's Path carrying `X-Sim-Fault: close-flow`. Only an edge
   * configured for it (the suite's Kamailio configuration) does so; any other answers the OPTIONS, or not.
   */
  terminate(registration: Registration): void {
    const core = this.requireCore();
    const target = Grammar.URIParse(registration.contact);
    const to = Grammar.URIParse(`sip:${registration.username}@${this.options.host}`);
    const from = Grammar.URIParse(`sip:simulator@${this.options.host}`);
    if (!target || !to || !from) throw new Error('cannot address the registered agent');
    core.request(core.makeOutgoingRequestMessage('OPTIONS', target, from, to, { routeSet: registration.path ?? [] }, ['X-Sim-Fault: close-flow']));
  }

  /** The `stall-sip-socket` fault needs the page's own socket, which behind an edge is the edge's: refused. */
  stall(): void {
    throw new Error('stall-sip-socket cannot strike a page behind a SIP edge: its WebSocket is the edge\'s');
  }

  pruneNonces(now: number): void {
    this.registration.pruneNonces(now);
  }

  /** Drops every transaction and dialog and closes the socket. */
  close(): void {
    this.core?.dispose();
    this.socket.close();
  }

  private requireCore(): UserAgentCore {
    if (!this.core) throw new Error('the SIP UDP side is not listening yet');
    return this.core;
  }
}
