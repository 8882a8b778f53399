import type { Clock } from './clock.js';

/**
 * Keeps the SIP WebSocket alive and notices one that stalls without closing (RFC 5626 section 3.5.1: a
 * double-CRLF ping, a CRLF pong). A ping goes out every {@link PING_EVERY_MS}; one that finds the last ping
 * unanswered is a last chance, and only a socket that then stays silent for {@link ANSWER_WAIT_MS} is dead, so
 * the link reconnects it as it does a socket that closed.
 *
 * @remarks
 * Only pings actually sent and left unanswered count, never the time since the socket last spoke: a hidden page's
 * timers run once a minute, and a tick that wakes a minute late finds the answers of every ping it sent. A page
 * the browser resumed after freezing it asks at once (`probe()`).
 */

/** How often a ping goes out while the socket answers. */
export const PING_EVERY_MS = 5000;
/** How long a last-chance ping, or a probe's, may go unanswered before the socket is dead. */
export const ANSWER_WAIT_MS = 1500;

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
   * Pings now and declares the socket dead unless something is heard within {@link ANSWER_WAIT_MS}: the page is
   * back (online, shown, resumed) and the socket may have died meanwhile. Does nothing while stopped.
   */
  probe(): void;
}

export function createKeepAlive(link: KeepAliveLink): KeepAlive {
  const { clock } = link;
  /** A ping is out and nothing was heard since; its miss is then the end (a last chance or a probe). */
  let unanswered = false;
  let lastChance = false;
  let timer: unknown;
  const ping = (wait: number, last: boolean) => {
    link.ping();
    unanswered = true;
    lastChance = last;
    timer = clock.setTimeout(tick, wait);
  };
  /** Judges the ping out, however late the timer ran: its answer, if any came, was heard meanwhile. */
  const tick = () => {
    timer = undefined;
    if (!unanswered) return ping(PING_EVERY_MS, false);
    if (!lastChance) return ping(ANSWER_WAIT_MS, true);
    link.onDead();
  };
  const stop = () => {
    clock.clearTimeout(timer);
    timer = undefined;
  };
  return {
    heard() {
      unanswered = false;
    },
    start() {
      stop();
      unanswered = false;
      timer = clock.setTimeout(tick, PING_EVERY_MS);
    },
    stop,
    probe() {
      if (timer === undefined) return;
      stop();
      ping(ANSWER_WAIT_MS, true);
    },
  };
}
