import { FakeSipEdge } from './fake-sip-edge.js';

/**
 * A browser WebSocket for the SIP link (`new WebSocket(url, 'sip')`) in front of a scriptable edge (RFC 7118;
 * fake-sip-edge.ts says what the edge answers: REGISTER, OPTIONS, double-CRLF pings). Each socket follows the
 * script given for it, so a test acts out what Safari's socket does: open and serve, fail its handshake, or open
 * and close abnormally (1006) at once, before or after the registration is answered. Events arrive in
 * microtasks, never on a timer, so a test's clocks alone decide when anything waits.
 */

/** What one socket does, from its construction. */
export type SocketScript =
  /** Opens and serves registration and keep-alive. */
  | 'serve'
  /** The handshake fails: error, then close 1006, never open (no network yet, say, as a device wakes). */
  | 'refuse'
  /** Opens, then closes 1006 as soon as the REGISTER is sent, unanswered (Safari's socket killed at once). */
  | 'drop-on-register'
  /** Opens, answers the REGISTER, then closes 1006 at once. */
  | 'drop-after-register';

const microtask = () => Promise.resolve();

/** One SIP WebSocket. */
export class FakeSipSocket extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  readyState = FakeSipSocket.CONNECTING;
  binaryType = 'blob';
  /** When the page made it, by `Date.now()` (a test's fake time). */
  readonly madeAt = Date.now();
  /** Every message the page sent on this socket. */
  readonly sent: string[] = [];
  /** When each REGISTER came, by `Date.now()`. */
  readonly registers: number[] = [];
  /** The status codes the next REGISTERs on this socket are refused with, in order (the registrar dropped the session, say). */
  readonly refusals: number[] = [];
  /** The path died without a word: nothing is answered, and the closing handshake never completes. */
  #stalled = false;

  constructor(
    readonly url: string,
    readonly script: SocketScript,
    readonly edge: FakeSipEdge = new FakeSipEdge(),
  ) {
    super();
    void microtask().then(() => (script === 'refuse' ? this.#fail() : this.#open()));
  }

  send(data: string): void {
    if (this.readyState !== FakeSipSocket.OPEN) throw new DOMException('not open', 'InvalidStateError');
    this.sent.push(data);
    if (this.#stalled) return;
    if (data.startsWith('REGISTER ')) {
      this.registers.push(Date.now());
      if (this.script === 'drop-on-register') return void microtask().then(() => this.drop());
    }
    const refusal = data.startsWith('REGISTER ') ? this.refusals.shift() : undefined;
    const reply = this.edge.answer(data, refusal);
    if (reply === undefined) return;
    void microtask().then(() => {
      this.#receive(reply);
      if (this.script === 'drop-after-register' && data.startsWith('REGISTER ')) void microtask().then(() => this.drop());
    });
  }

  /** The page closes it: the closing handshake completes (1000). */
  close(code = 1000): void {
    if (this.readyState >= FakeSipSocket.CLOSING) return;
    this.readyState = FakeSipSocket.CLOSING;
    if (this.#stalled) return;
    void microtask().then(() => this.#closed(code, true));
  }

  /** From now on the socket stays open and answers nothing, its closing handshake included (a network change). */
  stall(): void {
    this.#stalled = true;
  }

  /** The connection is gone without a closing handshake: close 1006, as Safari reports a socket killed under it. */
  drop(): void {
    if (this.readyState === FakeSipSocket.CLOSED) return;
    this.#closed(1006, false);
  }

  /** The edge sends a request of its own down this socket (an INVITE, say), as raw SIP. */
  receive(data: string): void {
    this.#receive(data);
  }

  #open(): void {
    if (this.readyState !== FakeSipSocket.CONNECTING) return;
    if (this.edge.down) return this.#fail();
    this.readyState = FakeSipSocket.OPEN;
    this.dispatchEvent(new Event('open'));
  }

  #fail(): void {
    this.dispatchEvent(new Event('error'));
    this.#closed(1006, false);
  }

  #closed(code: number, wasClean: boolean): void {
    this.readyState = FakeSipSocket.CLOSED;
    this.dispatchEvent(Object.assign(new Event('close'), { code, wasClean, reason: '' }));
  }

  #receive(data: string): void {
    if (this.readyState === FakeSipSocket.OPEN) this.dispatchEvent(Object.assign(new Event('message'), { data }));
  }
}

/**
 * The sockets of one test, all to one edge ({@link edge}): its `WebSocket` class goes in the page's place
 * (`vi.stubGlobal`), and each socket made from it takes the next script of the queue (`serve` once it is empty).
 */
export class FakeSipSockets {
  readonly opened: FakeSipSocket[] = [];
  readonly #scripts: SocketScript[] = [];

  constructor(readonly edge: FakeSipEdge = new FakeSipEdge()) {}

  /** The scripts of the next sockets, in order. */
  next(...scripts: SocketScript[]): void {
    this.#scripts.push(...scripts);
  }

  /** The WebSocket class for the page: each instance joins {@link opened}. */
  get WebSocket(): typeof FakeSipSocket {
    const sockets = this;
    return class extends FakeSipSocket {
      constructor(url: string) {
        super(url, sockets.#scripts.shift() ?? 'serve', sockets.edge);
        sockets.opened.push(this);
      }
    };
  }

  get last(): FakeSipSocket {
    const socket = this.opened.at(-1);
    if (!socket) throw new Error('no SIP WebSocket was opened');
    return socket;
  }
}
