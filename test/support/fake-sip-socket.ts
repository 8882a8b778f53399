/**
 * A browser WebSocket for SIP.js's transport (`new WebSocket(url, 'sip')`) that plays a registrar (RFC 7118):
 * it answers REGISTER 200 with the Contact it was sent, and a double-CRLF ping with a CRLF pong (RFC 5626). Each
 * socket follows the script given for it, so a test acts out what Safari's socket does: open and serve, fail its
 * handshake, or open and close abnormally (1006) at once, before or after the registration is answered. Events
 * arrive in microtasks, never on a timer, so a test's clocks alone decide when anything waits.
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

/** One SIP.js WebSocket. */
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
  /** The status codes the next REGISTERs are refused with, in order (the registrar dropped the session, say). */
  readonly refusals: number[] = [];
  /** The path died without a word: nothing is answered, and the closing handshake never completes. */
  #stalled = false;

  constructor(
    readonly url: string,
    readonly script: SocketScript,
  ) {
    super();
    void microtask().then(() => (script === 'refuse' ? this.#fail() : this.#open()));
  }

  send(data: string): void {
    if (this.readyState !== FakeSipSocket.OPEN) throw new DOMException('not open', 'InvalidStateError');
    this.sent.push(data);
    if (this.#stalled) return;
    if (data === '\r\n\r\n') return void microtask().then(() => this.#receive('\r\n'));
    if (!data.startsWith('REGISTER ')) return;
    this.registers.push(Date.now());
    if (this.script === 'drop-on-register') return void microtask().then(() => this.drop());
    const refusal = this.refusals.shift();
    void microtask().then(() => {
      this.#receive(refusal ? answer(data, `${refusal} Refused`) : answer(data, '200 OK', true));
      if (this.script === 'drop-after-register') void microtask().then(() => this.drop());
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

  #open(): void {
    if (this.readyState !== FakeSipSocket.CONNECTING) return;
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
 * A registrar's answer to a REGISTER, with the request's dialog headers: a 200 with its Contact bound for its
 * Expires, or a refusal.
 */
function answer(request: string, status: string, bound = false): string {
  const header = (name: string) => request.match(new RegExp(`^${name}:\\s*(.*)$`, 'im'))?.[1]?.trim() ?? '';
  const vias = request.match(/^Via:.*$/gim) ?? [];
  const expires = header('Expires') || '600';
  return [
    `SIP/2.0 ${status}`,
    ...vias,
    `From: ${header('From')}`,
    `To: ${header('To')};tag=registrar`,
    `Call-ID: ${header('Call-ID')}`,
    `CSeq: ${header('CSeq')}`,
    ...(bound ? [`Contact: ${header('Contact')};expires=${expires}`] : []),
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

/**
 * The sockets of one test: its `WebSocket` class goes in the page's place (`vi.stubGlobal`), and each socket made
 * from it takes the next script of the queue (`serve` once it is empty).
 */
export class FakeSipSockets {
  readonly opened: FakeSipSocket[] = [];
  readonly #scripts: SocketScript[] = [];

  /** The scripts of the next sockets, in order. */
  next(...scripts: SocketScript[]): void {
    this.#scripts.push(...scripts);
  }

  /** The WebSocket class for the page: each instance joins {@link opened}. */
  get WebSocket(): typeof FakeSipSocket {
    const sockets = this;
    return class extends FakeSipSocket {
      constructor(url: string) {
        super(url, sockets.#scripts.shift() ?? 'serve');
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
