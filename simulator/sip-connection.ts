import type { WebSocket } from 'ws';
import {
  Grammar,
  IncomingRequestMessage,
  IncomingResponseMessage,
  LoggerFactory,
  Parser,
  UserAgentCore,
  type IncomingRegisterRequest,
  type OutgoingInviteRequest,
  type Session,
  type URI,
} from 'sip.js/lib/core/index.js';
import { challengeHeader, createNonce, parseDigest, verifyDigest } from './digest.js';

/**
 * One SIP over WebSocket connection (RFC 7118) of the simulator: the registrar's digest authentication of its
 * REGISTERs and the service side of the INVITE dialogs that ring the page's agent over it (sip-server.ts holds
 * the bindings and the endpoint). The shapes both speak of (a binding, a browser leg) are declared here, and
 * the registrar is known only by what a connection tells it ({@link Registrar}): the two files import one way.
 */

/** What the registrar needs to know of a username: the session it belongs to and its password. */
export interface SipAccount {
  sessionId: string;
  password: string;
  /** Upper bound of a registration's lifetime, in seconds (the session's remaining life, capped). */
  maxExpiresSeconds: number;
}

export interface SipServerOptions {
  realm: string;
  /** Host name used in Via, Contact and From of what the service sends. */
  host: string;
  lookupAccount(username: string): SipAccount | undefined;
  onRegistrationChange?(sessionId: string): void;
  now?: () => number;
}

/** A live binding of a session's agent to a WebSocket. */
export interface Registration {
  sessionId: string;
  username: string;
  contact: string;
  expiresAt: number;
  connection: SipConnection;
}

/** Events of the browser leg of one call. */
export interface BrowserLegHandlers {
  onAnswered(answerSdp: string): void;
  /** A final non-2xx answer to the INVITE, including the 487 that answers our own CANCEL (RFC 3261 section 9.1). */
  onRejected(statusCode: number, reasonPhrase: string): void;
  onBye(): void;
  onInfo(contentType: string, body: string): void;
  /** The WebSocket that carried the leg closed while the leg was up: no SIP can reach the page on it any more. */
  onTransportLost(): void;
}

/** The service's handle on an INVITE it sent to the page. */
export interface BrowserLeg {
  /**
   * CANCEL before the answer, BYE after it; resolves when the page answered that request, or at once for a
   * leg already ended. A socket that died resolves it too: there is nobody left to tell.
   */
  end(): Promise<void>;
}

export interface InviteOptions {
  callId: string;
  from: string;
  offerSdp: string;
  handlers: BrowserLegHandlers;
}

/** What a connection tells the registrar (sip-server.ts) of the bindings its REGISTERs make and end. */
export interface Registrar {
  addRegistration(registration: Registration): void;
  /** Drops a binding; with a connection given, only when the binding is still that connection's. */
  removeRegistration(sessionId: string, connection?: SipConnection): void;
}

/** One WebSocket and the SIP core speaking over it. */
export class SipConnection {
  readonly core: UserAgentCore;
  private readonly nonces = new Map<string, number>();
  /** Legs waiting for the page to answer their BYE or CANCEL; a closed socket will not, so they settle then. */
  private readonly endings = new Set<() => void>();
  /** Legs not yet ended, told when the socket closes under them. */
  private readonly liveLegs = new Set<BrowserLegHandlers>();

  constructor(
    readonly socket: WebSocket,
    private readonly server: Registrar,
    private readonly options: SipServerOptions,
  ) {
    const contactUri = Grammar.URIParse(`sip:${options.host};transport=ws`);
    if (!contactUri) throw new Error(`bad SIP host ${options.host}`);
    const loggerFactory = new LoggerFactory();
    loggerFactory.builtinEnabled = false;
    this.core = new UserAgentCore(
      {
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
        viaHost: options.host,
        authenticationFactory: () => undefined,
        transportAccessor: () => ({
          protocol: 'WS',
          send: async (message: string) => {
            if (socket.readyState === socket.OPEN) socket.send(message);
            else throw new Error('SIP socket closed');
          },
        }),
      },
      { onRegister: (request) => this.onRegister(request) },
    );
    socket.on('message', (data, isBinary) => this.receive(isBinary ? data.toString() : String(data)));
  }

  private receive(text: string): void {
    if (text.trim() === '') {
      // RFC 5626 section 3.5.1: a double-CRLF ping is answered with a single CRLF pong; it is not a SIP message.
      if (/^(\r\n\r\n)+$/.test(text) && this.socket.readyState === this.socket.OPEN) this.socket.send('\r\n');
      return;
    }
    const logger = this.core.loggerFactory.getLogger('sim.parser');
    const message = Parser.parseMessage(text, logger);
    if (message instanceof IncomingRequestMessage) this.core.receiveIncomingRequestFromTransport(message);
    else if (message instanceof IncomingResponseMessage) this.core.receiveIncomingResponseFromTransport(message);
  }

  private onRegister(request: IncomingRegisterRequest): void {
    const message = request.message;
    const now = this.options.now?.() ?? Date.now();
    const params = parseDigest(message.getHeader('authorization') ?? '');
    const account = params?.username ? this.options.lookupAccount(params.username) : undefined;
    if (params?.username && !account) {
      // Revoked or expired credentials: a new challenge would only loop (RFC 3261 section 22.1).
      request.reject({ statusCode: 403, reasonPhrase: 'Forbidden' });
      return;
    }
    if (!params || !account) return this.challenge(request, now, false);
    const nonce = params.nonce ?? '';
    if (!verifyDigest({ method: 'REGISTER', params, password: account.password, realm: this.options.realm, nonce })) {
      return this.challenge(request, now, false);
    }
    const issuedAt = this.nonces.get(nonce);
    if (issuedAt === undefined || now - issuedAt >= 5 * 60_000) {
      // RFC 2617 section 3.2.1: the right password over a nonce that is not (or no longer) ours is stale, so
      // the client retries with the new nonce instead of giving up (SIP.js reuses its last Authorization).
      return this.challenge(request, now, true);
    }
    // RFC 3261 section 10.3 step 3: credentials may only change the bindings of their own address-of-record.
    if (message.to.uri.user !== params.username) {
      request.reject({ statusCode: 403, reasonPhrase: 'Forbidden' });
      return;
    }
    const username = params.username ?? '';
    const contactHeader = message.getHeader('contact') ?? '';
    const contact = message.parseHeader('contact') as { uri?: URI; getParam(name: string): string | undefined } | undefined;
    const requested = Number(contact?.getParam('expires') ?? message.getHeader('expires') ?? 3600);
    if (contactHeader.trim() === '*' || requested === 0 || !contact?.uri) {
      this.server.removeRegistration(account.sessionId, this);
      request.accept({ statusCode: 200 });
      return;
    }
    // RFC 3261 section 10.3 step 7: the registrar may shorten the lifetime; it echoes what it granted.
    const expires = Math.max(1, Math.min(Number.isFinite(requested) ? requested : 3600, account.maxExpiresSeconds));
    this.server.addRegistration({
      sessionId: account.sessionId,
      username,
      contact: contact.uri.toString(),
      expiresAt: now + expires * 1000,
      connection: this,
    });
    const echoed = contactHeader.replace(/;\s*expires=\d+/i, '') + `;expires=${expires}`;
    request.accept({ statusCode: 200, extraHeaders: [`Contact: ${echoed}`, `Expires: ${expires}`] });
  }

  /** A 401 with a fresh nonce (RFC 3261 section 22.1). */
  private challenge(request: IncomingRegisterRequest, now: number, stale: boolean): void {
    const nonce = createNonce();
    this.pruneNonces(now);
    this.nonces.set(nonce, now);
    request.reject({ statusCode: 401, extraHeaders: [`WWW-Authenticate: ${challengeHeader(this.options.realm, nonce, stale)}`] });
  }

  /** Sends the INVITE that rings the agent, carrying `X-Browser-Call-Id` (DESIGN.md). */
  invite(registration: Registration, options: InviteOptions): BrowserLeg {
    const target = Grammar.URIParse(registration.contact);
    const to = Grammar.URIParse(`sip:${registration.username}@${this.options.host}`);
    const from = Grammar.URIParse(`sip:${options.from.replace(/^\+/, '')}@${this.options.host}`);
    if (!target || !to || !from) throw new Error('cannot address the registered agent');
    const request = this.core.makeOutgoingRequestMessage(
      'INVITE', target, from, to, {},
      [`X-Browser-Call-Id: ${options.callId}`, `Contact: <sip:${this.options.host};transport=ws>`],
      { contentDisposition: 'session', contentType: 'application/sdp', content: options.offerSdp },
    );
    let session: Session | undefined;
    let ended = false;
    let settle: (() => void) | undefined;
    const { handlers } = options;
    this.liveLegs.add(handlers);
    const outgoing: OutgoingInviteRequest = this.core.invite(request, {
      onAccept: (response) => {
        response.ack();
        if (ended || session) {
          // A 2xx after we gave up (a CANCEL race) still creates a dialog: end it (RFC 3261 section 15).
          if (!session) {
            response.session.bye();
            settle?.();
          }
          return;
        }
        session = response.session;
        session.delegate = {
          onBye: (bye) => {
            bye.accept();
            ended = true;
            this.liveLegs.delete(handlers);
            handlers.onBye();
          },
          onInfo: (info) => {
            info.accept();
            handlers.onInfo(info.message.getHeader('content-type') ?? '', info.message.body);
          },
        };
        handlers.onAnswered(response.message.body);
      },
      onReject: (response) => {
        const wasEnded = ended;
        ended = true;
        this.liveLegs.delete(handlers);
        handlers.onRejected(response.message.statusCode ?? 500, response.message.reasonPhrase ?? '');
        if (wasEnded) settle?.(); // the 487 that answers our CANCEL
      },
    });
    return {
      end: () => {
        if (ended) return Promise.resolve();
        ended = true;
        this.liveLegs.delete(handlers);
        return new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.endings.delete(done);
            resolve();
          };
          // RFC 3261 timer F: a non-INVITE transaction gives up after 32 s; a page gone quiet must not
          // hold the call in `ending` that long.
          const timer = setTimeout(done, 4000);
          this.endings.add(done);
          if (this.socket.readyState !== this.socket.OPEN) return done();
          if (session) session.bye({ onAccept: done, onReject: done });
          else {
            settle = done;
            outgoing.cancel();
          }
        });
      },
    };
  }

  /**
   * Drops every transaction and dialog of this socket once it closed: their timers (RFC 6026 timer M keeps an
   * answered INVITE's transaction 32 s) would otherwise outlive the connection and the simulator. Legs still
   * ending settle at once instead of waiting out their own timer; legs still up learn that their transport is gone.
   */
  dispose(): void {
    for (const settle of [...this.endings]) settle();
    const lost = [...this.liveLegs];
    this.liveLegs.clear();
    for (const handlers of lost) handlers.onTransportLost();
    this.core.dispose();
  }

  /** Nonces are per connection and forgotten after 5 minutes, so a chatty page cannot grow them. */
  pruneNonces(now: number): void {
    for (const [nonce, at] of this.nonces) if (now - at > 5 * 60_000) this.nonces.delete(nonce);
  }
}
