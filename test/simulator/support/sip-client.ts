import { WebSocket as NodeWebSocket } from 'ws';
import { Core, Registerer, SIPExtension, UserAgent, type Invitation } from 'sip.js';
import type { SessionTransport } from '../../../simulator/service/model.js';
import { fakeSdhFactory } from './fake-sdh.js';
import { weriftSdhFactory } from './werift-sdh.js';

/**
 * SIP.js, the stack the page runs, driven from Node against the simulator's `/sip` WebSocket: a user agent
 * with the session's credentials, whose INVITEs queue up for the test to answer.
 */

/**
 * Node 20 has no global WebSocket, and SIP.js's transport constructs one by that name: lend it `ws`'s, with
 * every text frame the client receives appended to `received` (the wire as the page would see it).
 * Answers the function that puts the previous value back.
 */
export function lendWebSocket(received: string[] = []): () => void {
  class TappedWebSocket extends NodeWebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      this.on('message', (data, isBinary) => {
        if (!isBinary) received.push(String(data));
      });
    }
  }
  const global = globalThis as { WebSocket?: unknown };
  const had = Object.prototype.hasOwnProperty.call(global, 'WebSocket');
  const previous = global.WebSocket;
  global.WebSocket = TappedWebSocket;
  return () => {
    if (had) global.WebSocket = previous;
    else delete global.WebSocket;
  };
}

/** How {@link SipClient.start} departs from the session's own transport, to provoke refusals or carry media. */
export interface SipClientOptions {
  /** Overrides the session's password, to prove a wrong one is refused. */
  password?: string;
  /** Overrides the session's username (a revoked or unknown one). */
  username?: string;
  /** Overrides the address-of-record (the From and To of REGISTER), keeping the session's credentials. */
  aor?: string;
  /** `fake` (default) answers with a canned SDP and no media; `werift` runs real WebRTC on loopback. */
  media?: 'fake' | 'werift';
  /** Supports RFC 3262 reliable provisional responses (SIP.js's `sipExtension100rel`), as an edge that requires 100rel needs. */
  rel100?: boolean;
}

/** A started SIP.js user agent; INVITEs wait in {@link SipClient.nextInvitation} until the test takes them. */
export class SipClient {
  private readonly invitations: Invitation[] = [];
  private readonly waiting: Array<(invitation: Invitation) => void> = [];

  private constructor(readonly ua: UserAgent) {}

  static async start(transport: SessionTransport, options: SipClientOptions = {}): Promise<SipClient> {
    const aor = options.aor ?? transport.sipUri;
    const uri = UserAgent.makeURI(aor);
    if (!uri) throw new Error(`not a SIP URI: ${aor}`);
    let client: SipClient | undefined;
    const ua = new UserAgent({
      uri,
      authorizationUsername: options.username ?? transport.authorizationUsername,
      authorizationPassword: options.password ?? transport.authorizationPassword,
      // The WebSocket upgrade may wait long on a loaded machine; SIP.js gives up (1006) when this runs out.
      transportOptions: { server: transport.websocketUrl, connectionTimeout: 30 },
      sessionDescriptionHandlerFactory: options.media === 'werift' ? weriftSdhFactory : fakeSdhFactory,
      logBuiltinEnabled: false,
      ...(options.rel100 ? { sipExtension100rel: SIPExtension.Supported } : {}),
      delegate: { onInvite: (invitation) => client?.deliver(invitation) },
    });
    client = new SipClient(ua);
    await ua.start();
    return client;
  }

  /** The next INVITE, taken in arrival order (it may have arrived already). */
  nextInvitation(): Promise<Invitation> {
    const queued = this.invitations.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A Registerer of this user agent, as the page creates it (it refreshes by itself before expiry). */
  registerer(expires?: number): Registerer {
    return new Registerer(this.ua, expires === undefined ? {} : { expires });
  }

  /** Sends one REGISTER through the Registerer; answers its final response (after any digest challenge). */
  register(registerer: Registerer): Promise<Core.IncomingResponseMessage> {
    return new Promise((resolve, reject) => {
      registerer
        .register({
          requestDelegate: {
            onAccept: (response) => resolve(response.message),
            onReject: (response) => resolve(response.message),
          },
        })
        .catch(reject);
    });
  }

  /**
   * A REGISTER sender without the Registerer's refresh timer, to see a binding lapse: each call sends one
   * REGISTER with the same Call-ID and the next CSeq (RFC 3261 section 10.2), SIP.js answering the challenge.
   */
  bareRegistrations(): (expires: number) => Promise<Core.IncomingResponseMessage> {
    const aor = this.ua.configuration.uri;
    const registrar = UserAgent.makeURI(`sip:${aor.host}`);
    if (!registrar) throw new Error(`no registrar for ${aor.host}`);
    const message = this.ua.userAgentCore.makeOutgoingRequestMessage('REGISTER', registrar, aor, aor, {});
    return (expires) =>
      new Promise((resolve) => {
        message.cseq++;
        message.setHeader('cseq', `${message.cseq} REGISTER`);
        message.extraHeaders = [`Contact: ${this.ua.contact.toString({ register: true })};expires=${expires}`];
        this.ua.userAgentCore.register(message, {
          onAccept: (response) => resolve(response.message),
          onReject: (response) => resolve(response.message),
        });
      });
  }

  /** An out-of-dialog request (OPTIONS, ...) to the service; answers its final response. */
  request(method: string, extraHeaders: string[] = []): Promise<Core.IncomingResponseMessage> {
    const aor = this.ua.configuration.uri;
    const target = UserAgent.makeURI(`sip:${aor.host}`);
    if (!target) throw new Error(`no target for ${aor.host}`);
    const message = this.ua.userAgentCore.makeOutgoingRequestMessage(method, target, aor, target, {}, extraHeaders);
    return new Promise((resolve) => {
      this.ua.userAgentCore.request(message, {
        onAccept: (response) => resolve(response.message),
        onReject: (response) => resolve(response.message),
      });
    });
  }

  /** Ends every session, unregisters, closes the WebSocket and disposes the core (no timers left). */
  async stop(): Promise<void> {
    await this.ua.stop();
  }

  private deliver(invitation: Invitation): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter(invitation);
    else this.invitations.push(invitation);
  }
}
