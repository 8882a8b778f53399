import { HttpError } from '../../contract/http-error.js';
import type { Agent, BrowserCall, BrowserSession, SessionTransport } from './model.js';
import { newId, token, type Owned } from './resources.js';
import type { SipAccount, SipServer } from '../sip/sip-server.js';
import type { SessionIce } from '../turn/network-profile.js';

/**
 * The simulated service's browser sessions (spec 4.7 `/browser-sessions`): the temporary SIP credentials each
 * one issues, its expiry, and the account the registrar (`SipServer`) knows its username by.
 *
 * @remarks
 * A session's lifetime rules: a new session of a subject supersedes its idle older one; an ended session
 * hangs up its call, an expired one lets an accepted call run on under its own limit (spec 3.2). Expiry is
 * applied whenever a session is read, so the service needs no timer for it.
 */

/** What the sessions need to know of the calls: whether a session has one running, and how to end it. */
export interface SessionCalls {
  activeCallOf(sessionId: string): BrowserCall | undefined;
  /** Hangs up the session's active call, if any (`endReason: session_ended`). */
  hangupCallOf(sessionId: string): void;
}

/** What the sessions need: the registrar, the calls, where the page reaches `/sip`, and the lifetimes. */
export interface BrowserSessionsOptions {
  sip: SipServer;
  calls: SessionCalls;
  /** Public base of the simulator, e.g. `http://127.0.0.1:8090`, to tell the page where `/sip` is. */
  publicUrl(): string;
  host: string;
  sessionTtlSeconds: number;
  registrationMaxSeconds: number;
  now: () => number;
  /** The ICE configuration a session of the subject gets now, its TURN credentials for `user` until `expiresAtMs`. */
  ice?: (externalSubject: string, user: string, expiresAtMs: number) => SessionIce;
}

interface SessionRecord extends Owned<BrowserSession> {
  username: string;
  password: string;
}

/** Every session the service issued, each under the key that created it, with its SIP credentials. */
export class BrowserSessions {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly sessionsByUsername = new Map<string, string>();

  constructor(private readonly options: BrowserSessionsOptions) {}

  /** Issues a session of the agent with temporary SIP credentials; supersedes an idle older one of its subject. */
  create(owner: string, agent: Agent): { session: BrowserSession; transport: SessionTransport } {
    const current = this.currentRecord(owner, agent.externalSubject);
    if (current) this.close(current, 'ended');
    const now = this.options.now();
    const username = `u${token(15)}`;
    const session: BrowserSession = {
      id: newId('bs'),
      agentId: agent.id,
      externalSubject: agent.externalSubject,
      status: 'active',
      expiresAt: new Date(now + this.options.sessionTtlSeconds * 1000).toISOString(),
      backend: 'simulator',
      createdAt: new Date(now).toISOString(),
      endedAt: null,
    };
    const record: SessionRecord = { owner, value: session, username, password: token(32) };
    this.sessions.set(session.id, record);
    this.sessionsByUsername.set(username, session.id);
    return { session, transport: this.transportOf(record) };
  }

  /**
   * The subject's current session and its active call (no credentials: spec 4.7); with no active session, an
   * expired one whose accepted call still runs (spec 3.2), so that a page can recover that call.
   */
  current(owner: string, externalSubject: string): { session: BrowserSession | null; call: BrowserCall | null } {
    const { calls } = this.options;
    const record =
      this.currentRecord(owner, externalSubject) ??
      [...this.sessions.values()].find((r) => r.owner === owner && r.value.externalSubject === externalSubject && calls.activeCallOf(r.value.id));
    if (!record) return { session: null, call: null };
    return { session: record.value, call: calls.activeCallOf(record.value.id) ?? null };
  }

  /** The key's session, expiry applied; `404 not_found` for an unknown id and for another key's alike. */
  get(owner: string, id: string): BrowserSession {
    return this.record(owner, id).value;
  }

  /** Ends an active session; of one already expired, hangs up the call its expiry let run on (spec 3.2, 4.7). */
  end(owner: string, id: string): BrowserSession {
    const record = this.record(owner, id);
    if (record.value.status === 'active') this.close(record, 'ended');
    else this.options.calls.hangupCallOf(record.value.id);
    return record.value;
  }

  /** Makes the session's `expiresAt` now and applies expiry; undefined for an unknown session (any owner). */
  expire(id: string): BrowserSession | undefined {
    const record = this.sessions.get(id);
    if (!record) return undefined;
    if (record.value.status === 'active') record.value = { ...record.value, expiresAt: this.iso() };
    this.refreshExpiry(record);
    return record.value;
  }

  /** The registrar's view of a username: its active session, password and longest registration. */
  sipAccount(username: string): SipAccount | undefined {
    const record = this.sessions.get(this.sessionsByUsername.get(username) ?? '');
    if (!record) return undefined;
    this.refreshExpiry(record);
    if (record.value.status !== 'active') return undefined;
    const remaining = Math.floor((Date.parse(record.value.expiresAt) - this.options.now()) / 1000);
    return {
      sessionId: record.value.id,
      password: record.password,
      maxExpiresSeconds: Math.max(1, Math.min(this.options.registrationMaxSeconds, remaining)),
    };
  }

  /** The id of every session issued, whatever its status. */
  ids(): string[] {
    return [...this.sessions.keys()];
  }

  /** Drops every session's registration, then forgets them all. */
  reset(): void {
    for (const record of this.sessions.values()) this.options.sip.removeRegistration(record.value.id);
    this.sessions.clear();
    this.sessionsByUsername.clear();
  }

  private transportOf(record: SessionRecord): SessionTransport {
    const { host, registrationMaxSeconds } = this.options;
    const base = new URL(this.options.publicUrl());
    return {
      // An edge in front of the simulator's SIP over UDP is where the pages connect, when there is one.
      websocketUrl: this.options.sip.edgeUrl ?? `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}/sip`,
      sipUri: `sip:${record.username}@${host}`,
      authorizationUsername: record.username,
      authorizationPassword: record.password,
      realm: host,
      registrationExpiresSeconds: registrationMaxSeconds,
      // The network profile in force says whether TURN carries the media (docs/network.md); `open`, host candidates only.
      ...(this.options.ice?.(record.value.externalSubject, record.username, Date.parse(record.value.expiresAt)) ?? { iceServers: [] }),
      expiresAt: record.value.expiresAt,
    };
  }

  private currentRecord(owner: string, externalSubject: string): SessionRecord | undefined {
    for (const record of this.sessions.values()) {
      if (record.owner !== owner || record.value.externalSubject !== externalSubject) continue;
      this.refreshExpiry(record);
      if (record.value.status === 'active') return record;
    }
    return undefined;
  }

  private record(owner: string, id: string): SessionRecord {
    const record = this.sessions.get(id);
    if (!record || record.owner !== owner) throw new HttpError(404, 'not_found', 'no such browser session');
    this.refreshExpiry(record);
    return record;
  }

  private refreshExpiry(record: SessionRecord): void {
    if (record.value.status === 'active' && Date.parse(record.value.expiresAt) <= this.options.now()) this.close(record, 'expired');
  }

  private close(record: SessionRecord, status: 'ended' | 'expired'): void {
    // An expired session keeps an accepted call running under its own limit (spec 3.2); an ended one does not.
    if (status === 'ended') this.options.calls.hangupCallOf(record.value.id);
    record.value = { ...record.value, status, endedAt: this.iso() };
    this.sessionsByUsername.delete(record.username);
    this.options.sip.removeRegistration(record.value.id);
  }

  private iso(): string {
    return new Date(this.options.now()).toISOString();
  }
}
