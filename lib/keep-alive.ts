import type { Clock } from './clock.js';

/**
 * Keeps the SIP WebSocket alive and notices one that stalls without closing (RFC 5626 section 3.5.1: a
 * double-CRLF ping, a CRLF pong): a ping goes out every {@link PING_EVERY_MS}, and a socket from which
 * nothing at all was heard for {@link DEAD_AFTER_MS} (two pings unanswered) is declared dead, within 15 s of
 * its last word, so the link reconnects it as it does a socket that closed.
 */

/** How often a ping goes out while the socket is up. */
export const PING_EVERY_MS = 5000;
/** Silence after which the socket is dead: two pings gone unanswered, checked every ping. */
export const DEAD_AFTER_MS = 12_000;

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
}

export function createKeepAlive(link: KeepAliveLink): KeepAlive {
  const { clock } = link;
  let lastHeard = clock.now();
  let timer: unknown;
  const tick = () => {
    timer = undefined;
    if (clock.now() - lastHeard >= DEAD_AFTER_MS) return link.onDead();
    link.ping();
    timer = clock.setTimeout(tick, PING_EVERY_MS);
  };
  return {
    heard() {
      lastHeard = clock.now();
    },
    start() {
      if (timer !== undefined) clock.clearTimeout(timer);
      lastHeard = clock.now();
      timer = clock.setTimeout(tick, PING_EVERY_MS);
    },
    stop() {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}
