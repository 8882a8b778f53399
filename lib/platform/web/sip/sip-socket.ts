import type { Clock } from '../../../core/clock.js';

/**
 * The SIP link's WebSocket (RFC 7118): subprotocol `sip`, one SIP message per frame. It is the transport SIP.js's
 * core sends through (`protocol` and `send()` are all the core asks of one), and every frame received passes
 * here first, so the keep-alive hears each one, pongs included, without reaching into anyone's private members.
 * It replaces SIP.js's web transport, whose reconnection, keep-alive and state machine the link does itself.
 * Imports nothing of SIP.js.
 */

export interface SipSocketEvents {
  /** A frame came: a SIP message, or the CRLF pong of a keep-alive ping (RFC 5626 section 4.4.1). */
  onFrame(text: string): void;
  /** The open socket closed or failed by itself (not by {@link SipSocket.close}). */
  onDrop(): void;
}

export interface SipSocket {
  /** The Via's transport: `WS` or `WSS`, after the URL's scheme. */
  readonly protocol: string;
  /** Opens a new socket (closing any old one without telling); rejects when it fails or the timeout passes. */
  open(): Promise<void>;
  /** Sends one message; rejects if no socket is open (the core then makes up a 503 for the transaction). */
  send(message: string): Promise<void>;
  isOpen(): boolean;
  /**
   * Lets the socket go now and tells the drop, without waiting for a closing handshake: a dead path never
   * completes one, and browsers give it up to a minute. Its own close, if it ever comes, is ignored.
   */
  drop(): void;
  /** Closes the socket on purpose: no drop is told. */
  close(): void;
}

export function createSipSocket(url: string, timeoutMs: number, clock: Clock, events: SipSocketEvents): SipSocket {
  let ws: WebSocket | undefined;
  /** Forgets the socket held: whatever it does later is ignored. */
  const release = () => {
    const old = ws;
    ws = undefined;
    old?.close();
  };
  const self: SipSocket = {
    protocol: url.slice(0, url.indexOf(':')).toUpperCase(),
    open: () =>
      new Promise<void>((resolve, reject) => {
        release();
        const socket = (ws = new WebSocket(url, 'sip'));
        socket.binaryType = 'arraybuffer';
        let opened = false;
        const timer = clock.setTimeout(() => {
          if (ws === socket) release();
          reject(new Error('the SIP WebSocket did not open in time'));
        }, timeoutMs);
        socket.onopen = () => {
          clock.clearTimeout(timer);
          opened = ws === socket;
          if (opened) resolve();
        };
        socket.onmessage = ({ data }: MessageEvent<string | ArrayBuffer>) => {
          if (ws === socket) events.onFrame(typeof data === 'string' ? data : new TextDecoder().decode(data));
        };
        socket.onclose = () => {
          clock.clearTimeout(timer);
          if (ws !== socket) return;
          ws = undefined;
          if (opened) events.onDrop();
          else reject(new Error('the SIP WebSocket closed before it opened'));
        };
      }),
    send: async (message) => {
      if (!self.isOpen()) throw new Error('the SIP WebSocket is not open');
      ws?.send(message);
    },
    isOpen: () => ws?.readyState === WebSocket.OPEN,
    drop: () => {
      if (!ws) return;
      release();
      events.onDrop();
    },
    close: release,
  };
  return self;
}
