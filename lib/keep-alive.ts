import type { Clock } from './clock.js';

/**
 * Keeps the SIP WebSocket alive and notices one that stalls without closing (RFC 5626 section 3.5.1: a
 * double-CRLF ping, a CRLF pong): a ping goes out every {@link PING_EVERY_MS}, and a socket from which
 * nothing at all was heard for {@link DEAD_AFTER_MS} (two pings unanswered) is declared dead at that moment,
 * so the link reconnects it as it does a socket that closed.
 */

/** How often a ping goes out while the socket is up. */
export const PING_EVERY_MS = 5000;
/** Silence after which the socket is dead: two pings gone unanswered. */
export const DEAD_AFTER_MS = 12_000;
/** How long a probe's ping may go unanswered (the network just changed under the socket). */
export const PROBE_WAIT_MS = 3000;

/** What the watchdog needs from the link. */
export interface KeepAliveLink {
  /** Sends a double-CRLF ping on the socket; a failure is the socket's own business. */
  ping(): void;
  /** The socket is dead: called once, then the watchdog stops until started again. */
  onDead(): void;
  clock: Clock;
}

/** The watchdog of one link: `heard()` on every frame received, `start()` once up, `stop()` when closing or reconnecting. */
export interface KeepAlive {
  heard(): void;
  start(): void;
  stop(): void;
  /**
   * Pings now and declares the socket dead unless something is heard within {@link PROBE_WAIT_MS}: the
   * browser said it is back `online`, so the network changed and the socket may be gone with the old one.
   */
  probe(): void;
}

export function createKeepAlive(link: KeepAliveLink): KeepAlive {
  const { clock } = link;
  let lastHeard = clock.now();
  let nextPing = 0;
  /** When a probe's ping went out, while it is unanswered. */
  let probedAt: number | undefined;
  let timer: unknown;
  const deadline = () => Math.min(lastHeard + DEAD_AFTER_MS, probedAt === undefined ? Infinity : probedAt + PROBE_WAIT_MS);
  /** Runs at the next ping or the deadline, whichever is first, so a silent socket is found at its deadline. */
  const tick = () => {
    const now = clock.now();
    if (probedAt !== undefined && lastHeard >= probedAt) probedAt = undefined;
    if (now >= deadline()) {
      timer = undefined;
      return link.onDead();
    }
    if (now >= nextPing) {
      link.ping();
      nextPing = now + PING_EVERY_MS;
    }
    timer = clock.setTimeout(tick, Math.min(nextPing, deadline()) - now);
  };
  return {
    heard() {
      lastHeard = clock.now();
    },
    start() {
      if (timer !== undefined) clock.clearTimeout(timer);
      lastHeard = clock.now();
      probedAt = undefined;
      nextPing = lastHeard + PING_EVERY_MS;
      timer = clock.setTimeout(tick, PING_EVERY_MS);
    },
    stop() {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    },
    probe() {
      if (timer === undefined) return;
      clock.clearTimeout(timer);
      probedAt = clock.now();
      nextPing = probedAt;
      tick();
    },
  };
}
