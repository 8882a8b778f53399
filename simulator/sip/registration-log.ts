import type { RegistrationRecord } from '../http/control-client.js';

/**
 * When each session was registered, for the simulator's control API: a test or the bench reads whether a page
 * kept its registration the whole time (a hidden tab, a frozen one) without polling the registrar.
 */

/** One stretch of registration: from a binding to when it ran out or was dropped; refreshes in time extend it. */
interface Span {
  from: number;
  until: number;
}

interface SessionLog {
  spans: Span[];
  registrations: number;
  sockets: Set<unknown>;
}

export class RegistrationLog {
  private readonly sessions = new Map<string, SessionLog>();

  /** The session was bound on `socket` (a connection, or an edge's flow named by its Path) until `expiresAt`, at `now`. */
  bound(sessionId: string, socket: unknown, now: number, expiresAt: number): void {
    const log = this.sessions.get(sessionId) ?? { spans: [], registrations: 0, sockets: new Set<unknown>() };
    this.sessions.set(sessionId, log);
    log.registrations += 1;
    log.sockets.add(socket);
    const last = log.spans.at(-1);
    if (last && last.until >= now) last.until = expiresAt;
    else log.spans.push({ from: now, until: expiresAt });
  }

  /** The session's binding was dropped at `now` (its socket closed, it unregistered, the session ended). */
  dropped(sessionId: string, now: number): void {
    const last = this.sessions.get(sessionId)?.spans.at(-1);
    if (last) last.until = Math.min(last.until, now);
  }

  record(sessionId: string, now: number): RegistrationRecord {
    const log = this.sessions.get(sessionId);
    const first = log?.spans[0];
    if (!log || !first) return { registered: false, firstRegisteredAt: null, unregisteredMs: 0, registrations: 0, sockets: 0 };
    const covered = log.spans.reduce((sum, span) => sum + Math.max(0, Math.min(span.until, now) - span.from), 0);
    return {
      registered: (log.spans.at(-1)?.until ?? 0) > now,
      firstRegisteredAt: new Date(first.from).toISOString(),
      unregisteredMs: now - first.from - covered,
      registrations: log.registrations,
      sockets: log.sockets.size,
    };
  }

  clear(): void {
    this.sessions.clear();
  }
}
