import { createHash, randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import type { SessionTransport } from '../../../simulator/service/model.js';

/**
 * A page's SIP written by hand over a raw WebSocket (RFC 7118), for what SIP.js in Node cannot say: a REGISTER
 * answering a SHA-256 challenge (RFC 8760), one that asks for outbound or a given lifetime, one that replays a
 * nonce, and a bare CRLF keep-alive. Every frame received is kept, in order.
 */

/** A SIP response as read off the wire: status, and its headers by lower-case name (each value, in order). */
export interface RawResponse {
  status: number;
  headers: Map<string, string[]>;
  text: string;
}

/** The digest parameters of one `WWW-Authenticate` header. */
export interface Challenge {
  realm: string;
  nonce: string;
  algorithm: string;
  stale: boolean;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** Reads a response's status line and headers. */
export function parseResponse(text: string): RawResponse {
  const [head = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return { status: Number(/^SIP\/2\.0 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, text };
}

/** Every challenge of a 401, in header order. */
export function challenges(response: RawResponse): Challenge[] {
  return (response.headers.get('www-authenticate') ?? []).map((value) => ({
    realm: /realm="([^"]*)"/.exec(value)?.[1] ?? '',
    nonce: /nonce="([^"]*)"/.exec(value)?.[1] ?? '',
    algorithm: /algorithm=([A-Za-z0-9-]+)/.exec(value)?.[1] ?? 'MD5',
    stale: /stale=true/i.test(value),
  }));
}

/** One raw SIP connection of a session's agent. */
export class RawSip {
  readonly frames: string[] = [];
  private readonly callId = hex(8);
  private readonly tag = hex(4);
  private readonly instance = `<urn:uuid:${hex(4)}-${hex(2)}-${hex(2)}-${hex(2)}-${hex(6)}>`;
  private cseq = 0;
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly ws: WebSocket,
    private readonly transport: SessionTransport,
  ) {
    ws.on('message', (data) => {
      this.frames.push(String(data));
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Opens the session's SIP WebSocket; rejects when the upgrade is refused. */
  static open(transport: SessionTransport): Promise<RawSip> {
    const ws = new WebSocket(transport.websocketUrl, 'sip');
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawSip(ws, transport)));
      ws.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused ${response.statusCode ?? 0}`)));
      ws.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.ws.readyState === WebSocket.CLOSED;
  }

  /** Sends a frame as it is (a keep-alive, say). */
  send(text: string): void {
    this.ws.send(text);
  }

  /** The next frame after `from` frames that `matches`, or undefined after `ms`. */
  async next(matches: (frame: string) => boolean, from = this.frames.length, ms = 3000): Promise<string | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.slice(from).find(matches);
      if (found !== undefined || Date.now() >= deadline) return found;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /**
   * Sends one REGISTER asking for `expires` seconds (with `+sip.instance`, `reg-id` and `Supported: outbound`
   * when `outbound`), answering `challenge` with its algorithm when given; resolves with the final response.
   */
  async register(expires: number, options: { outbound?: boolean; challenge?: Challenge; contactExpires?: boolean } = {}): Promise<RawResponse> {
    const { transport } = this;
    const host = new URL(transport.sipUri.replace(/^sip:/, 'sip://')).hostname;
    const uri = `sip:${host}`;
    const branch = `z9hG4bK${hex(6)}`;
    const outbound = options.outbound ? `;+sip.instance="${this.instance}";reg-id=1` : '';
    const lines = [
      `REGISTER ${uri} SIP/2.0`,
      `Via: SIP/2.0/WSS raw.invalid;branch=${branch}`,
      'Max-Forwards: 70',
      `To: <${transport.sipUri}>`,
      `From: <${transport.sipUri}>;tag=${this.tag}`,
      `Call-ID: ${this.callId}`,
      `CSeq: ${++this.cseq} REGISTER`,
      `Contact: <sip:${transport.authorizationUsername}@raw.invalid;transport=ws>${outbound}${options.contactExpires === false ? '' : `;expires=${expires}`}`,
      `Expires: ${expires}`,
      ...(options.outbound ? ['Supported: outbound, path'] : []),
      ...(options.challenge ? [`Authorization: ${this.authorization(options.challenge, uri)}`] : []),
      'Content-Length: 0',
      '',
      '',
    ];
    const from = this.frames.length;
    this.ws.send(lines.join('\r\n'));
    const answer = await this.next((frame) => frame.includes(`branch=${branch}`) && /^SIP\/2\.0 [2-6]/.test(frame), from);
    if (!answer) throw new Error('no final response to the REGISTER');
    return parseResponse(answer);
  }

  /** A REGISTER that answers whichever challenge `pick` chooses from the 401 it gets first. */
  async registerAuthenticated(expires: number, options: { outbound?: boolean; pick?: (all: Challenge[]) => Challenge | undefined } = {}): Promise<{ challenge: RawResponse; answer: RawResponse; used: Challenge }> {
    const challenge = await this.register(expires, options);
    const used = (options.pick ?? ((all) => all[0]))(challenges(challenge));
    if (!used) throw new Error(`no challenge to answer in ${challenge.status}`);
    return { challenge, answer: await this.register(expires, { ...options, challenge: used }), used };
  }

  close(): void {
    this.ws.terminate();
  }

  /** RFC 7616 section 3.4.1 with qop=auth, in the challenge's algorithm (MD5 or SHA-256). */
  private authorization(challenge: Challenge, uri: string): string {
    const algorithm = challenge.algorithm.toUpperCase() === 'SHA-256' ? 'sha256' : 'md5';
    const h = (text: string) => createHash(algorithm).update(text).digest('hex');
    const { authorizationUsername: username, authorizationPassword: password } = this.transport;
    const cnonce = hex(8);
    const nc = '00000001';
    const ha1 = h(`${username}:${challenge.realm}:${password}`);
    const ha2 = h(`REGISTER:${uri}`);
    const response = h(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`);
    return `Digest username="${username}", realm="${challenge.realm}", nonce="${challenge.nonce}", uri="${uri}", response="${response}", algorithm=${challenge.algorithm}, qop=auth, nc=${nc}, cnonce="${cnonce}"`;
  }
}
