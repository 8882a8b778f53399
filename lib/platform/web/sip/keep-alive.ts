import type { Clock } from '../../../core/clock.js';

/**
 * Keeps the SIP WebSocket alive and notices one that stalls without closing. Where the registrar confirmed
 * outbound, its edge answers a double-CRLF ping with a CRLF pong (RFC 5626 sections 3.5.1 and 4.4.1): a ping goes
 * out every {@link PING_EVERY_MS}; one that finds the last ping unanswered is a last chance, and only a socket
 * that then stays silent for {@link ANSWER_WAIT_MS} is dead, so the link reconnects it as it does a socket that
 * closed. An edge that did not confirm it owes no pong (OpenSIPS, Asterisk and FreeSWITCH send none), so there
 * the question is one any RFC 3261 edge answers, an OPTIONS (section 11), asked every {@link QUERY_EVERY_MS},
 * its last chance given {@link QUERY_WAIT_MS}: any response proves the socket alive.
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
/** How often an OPTIONS asks an edge that owes no pong: seldom, as each is a request the edge must answer. */
export const QUERY_EVERY_MS = 25_000;
/** How long a last-chance OPTIONS, or a probe's, may go unanswered: a response, where a pong is a frame. */
export const QUERY_WAIT_MS = 5000;

/** What a check of the socket sends: a double-CRLF ping (outbound confirmed), or an OPTIONS. */
export type Question = 'ping' | 'query';

/** What the watchdog needs from the link. */
export interface KeepAliveLink {
  /** Sends a double-CRLF ping, or an OPTIONS, on the socket; a failure is the socket's own business. */
  ping(question: Question): void;
  /** The socket is dead: called once, then the watchdog stops until started again. */
  onDead(): void;
  clock: Clock;
}

/**
 * The watchdog of one link: `heard()` on every frame received, `start()` once registered (`pongs` when the
 * registrar confirmed outbound), `stop()` when closing or reconnecting.
 */
export interface KeepAlive {
  heard(): void;
  start(pongs?: boolean): void;
  stop(): void;
  /**
   * Asks now and declares the socket dead unless something is heard within the last chance's wait: the page is
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
  let question: Question = 'ping';
  const every = () => (question === 'ping' ? PING_EVERY_MS : QUERY_EVERY_MS);
  const lastWait = () => (question === 'ping' ? ANSWER_WAIT_MS : QUERY_WAIT_MS);
  const ping = (wait: number, last: boolean) => {
    link.ping(question);
    unanswered = true;
    lastChance = last;
    timer = clock.setTimeout(tick, wait);
  };
  /** Judges the ping out, however late the timer ran: its answer, if any came, was heard meanwhile. */
  const tick = () => {
    timer = undefined;
    if (!unanswered) return ping(every(), false);
    if (!lastChance) return ping(lastWait(), true);
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
    start(pongs = true) {
      stop();
      unanswered = false;
      question = pongs ? 'ping' : 'query';
      timer = clock.setTimeout(tick, every());
    },
    stop,
    probe() {
      if (timer === undefined) return;
      stop();
      ping(lastWait(), true);
    },
  };
}
