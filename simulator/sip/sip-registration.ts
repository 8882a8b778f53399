import type { IncomingRegisterRequest, URI } from 'sip.js/lib/core/index.js';
import { createNonce, parseDigest, verifyDigest } from './digest.js';
import { defaultEdgeSettings, edgeBehaviour, type EdgeBehaviour, type EdgeSettings } from './edge/edge-profile.js';
import { challengeHeaders, refuseRegister, registerOkHeaders } from './edge/edge-registrar.js';

/**
 * The registrar's side of one SIP connection's REGISTERs (RFC 3261 section 10): digest authentication with
 * nonces of its own (RFC 3261 section 22, RFC 2617), then the binding the request asks for, added or removed.
 * The registrar that keeps the bindings (`SipServer`) is reached only through {@link BindingSink}.
 */

/** What the registrar needs to know of a username: the session it belongs to and its password. */
export interface SipAccount {
  sessionId: string;
  password: string;
  /** Upper bound of a registration's lifetime, in seconds (the session's remaining life, capped). */
  maxExpiresSeconds: number;
}

/** A binding of a session's agent to a contact, as a REGISTER asks for it (the connection adds itself). */
export interface Binding {
  sessionId: string;
  username: string;
  contact: string;
  expiresAt: number;
  /**
   * The agent's instance (`+sip.instance`), when it registered for outbound with a `reg-id` (RFC 5626 section
   * 4.2). Requests of a dialog do not follow an instance's newest flow: they go to the dialog's target (`DialogFlows`).
   */
  instance?: string;
  /**
   * The REGISTER's `Path` (RFC 3327), when an edge relayed it: the route set, top first, of every request sent to
   * the contact (section 5.3), so that it goes back through the edge that holds the agent's connection.
   */
  path?: string[];
}

/** Where a connection's REGISTERs add and drop their bindings. */
export interface BindingSink {
  bind(binding: Binding): void;
  /** Drops the session's binding, when it is still this connection's. */
  unbind(sessionId: string): void;
}

/** The registrar's settings a REGISTER is checked against. */
export interface RegistrationOptions {
  realm: string;
  lookupAccount(username: string): SipAccount | undefined;
  /** The edge the registrar speaks as (`EdgeState`); default the `kamailio` profile. */
  edge?: { behaviour(): EdgeBehaviour; readonly settings: EdgeSettings };
  now?: () => number;
}

/** The registrar's edge when none is given. */
const DEFAULT_EDGE = { behaviour: () => edgeBehaviour(defaultEdgeSettings()), settings: defaultEdgeSettings() };

/** How long a nonce stays ours: a REGISTER over an older one is answered stale (RFC 2617 section 3.2.1). */
const NONCE_LIFETIME_MS = 5 * 60_000;

/** One connection's REGISTER handling, with the nonces it issued. */
export class RegistrationHandler {
  private readonly nonces = new Map<string, number>();
  /** The sessions this connection bound, and how many refreshes of each it took. */
  private readonly refreshes = new Map<string, number>();

  constructor(
    private readonly options: RegistrationOptions,
    private readonly sink: BindingSink,
  ) {}

  /** Answers a REGISTER: a challenge, a refusal, or the binding it asks for, added or removed. */
  handle(request: IncomingRegisterRequest): void {
    const now = this.options.now?.() ?? Date.now();
    const authenticated = this.authenticate(request, now);
    if (authenticated) this.bind(request, authenticated.account, authenticated.username, now);
  }

  /** Nonces are per connection and forgotten after 5 minutes, so a chatty page cannot grow them. */
  pruneNonces(now: number): void {
    for (const [nonce, at] of this.nonces) if (now - at > NONCE_LIFETIME_MS) this.nonces.delete(nonce);
  }

  /** The account whose credentials the REGISTER carries; undefined once it was answered with a 401 or 403. */
  private authenticate(request: IncomingRegisterRequest, now: number): { account: SipAccount; username: string } | undefined {
    const params = parseDigest(request.message.getHeader('authorization') ?? '');
    const account = params?.username ? this.options.lookupAccount(params.username) : undefined;
    if (params?.username && !account) {
      // Revoked or expired credentials: a new challenge would only loop (RFC 3261 section 22.1).
      request.reject({ statusCode: 403, reasonPhrase: 'Forbidden' });
      return undefined;
    }
    if (!params || !account) return this.challenge(request, now, false);
    const nonce = params.nonce ?? '';
    const behaviour = this.edge.behaviour();
    if (!verifyDigest({ method: 'REGISTER', params, password: account.password, realm: this.options.realm, nonce, algorithms: behaviour.challenges })) {
      return this.challenge(request, now, false);
    }
    const issuedAt = this.nonces.get(nonce);
    // An edge whose nonces serve one request: the next use is a replay (RFC 7616 section 3.3, nextnonce aside).
    if (behaviour.singleUseNonces) this.nonces.delete(nonce);
    if (issuedAt === undefined || now - issuedAt >= NONCE_LIFETIME_MS) {
      // RFC 2617 section 3.2.1: the right password over a nonce that is not (or no longer) ours is stale, so
      // the client retries with the new nonce instead of giving up (SIP.js reuses its last Authorization).
      return this.challenge(request, now, true);
    }
    // RFC 3261 section 10.3 step 3: credentials may only change the bindings of their own address-of-record.
    if (request.message.to.uri.user !== params.username) {
      request.reject({ statusCode: 403, reasonPhrase: 'Forbidden' });
      return undefined;
    }
    return { account, username: params.username ?? '' };
  }

  /** Adds the binding the REGISTER asks for, or removes it (`Contact: *`, `expires=0`), and answers 200. */
  private bind(request: IncomingRegisterRequest, account: SipAccount, username: string, now: number): void {
    const message = request.message;
    const contactHeader = message.getHeader('contact') ?? '';
    const contact = message.parseHeader('contact') as { uri?: URI; getParam(name: string): string | undefined } | undefined;
    const requested = Number(contact?.getParam('expires') ?? message.getHeader('expires') ?? 3600);
    if (contactHeader.trim() === '*' || requested === 0 || !contact?.uri) {
      this.sink.unbind(account.sessionId);
      this.refreshes.delete(account.sessionId);
      request.accept({ statusCode: 200 });
      return;
    }
    // RFC 3261 section 10.3 step 7: the registrar may shorten the lifetime; it echoes what it granted.
    const asked = Number.isFinite(requested) ? requested : 3600;
    const edge = this.edge;
    const refresh = this.refreshes.get(account.sessionId);
    const refusal = refuseRegister(edge.behaviour(), edge.settings.refuseEveryNthRefresh, asked, refresh === undefined ? undefined : refresh + 1);
    if (refresh !== undefined) this.refreshes.set(account.sessionId, refresh + 1);
    if (refusal) return void request.reject(refusal);
    const expires = Math.max(1, Math.min(asked, account.maxExpiresSeconds));
    const instance = contact.getParam('reg-id') !== undefined ? contact.getParam('+sip.instance')?.replace(/^"|"$/g, '') : undefined;
    const path = pathOf(request);
    this.sink.bind({ sessionId: account.sessionId, username, contact: contact.uri.toString(), expiresAt: now + expires * 1000, ...(instance ? { instance } : {}), ...(path.length ? { path } : {}) });
    if (refresh === undefined) this.refreshes.set(account.sessionId, 0);
    request.accept({ statusCode: 200, extraHeaders: registerOkHeaders(edge.behaviour(), message, contactHeader, expires, path) });
  }

  private get edge(): NonNullable<RegistrationOptions['edge']> {
    return this.options.edge ?? DEFAULT_EDGE;
  }

  /** A 401 with a fresh nonce (RFC 3261 section 22.1). */
  private challenge(request: IncomingRegisterRequest, now: number, stale: boolean): undefined {
    const nonce = createNonce();
    this.pruneNonces(now);
    this.nonces.set(nonce, now);
    request.reject({ statusCode: 401, extraHeaders: challengeHeaders(this.edge.behaviour(), this.options.realm, nonce, stale) });
    return undefined;
  }
}

/** The REGISTER's Path entries, top first, one per name-addr (RFC 3327 section 4). */
function pathOf(request: IncomingRegisterRequest): string[] {
  return request.message.getHeaders('path').flatMap((value) => value.match(/<[^>]*>[^,]*/g) ?? []).map((entry) => entry.trim());
}
