import { afterEach, beforeEach, vi } from 'vitest';
import { systemClock } from '../../lib/platform/web/system-clock.js';
import { openSipLink } from '../../lib/platform/web/sip/sip-adapter.js';
import type { LinkEvent, SipLink } from '../../lib/runtime/sip-link.js';
import type { SessionTransport } from '../../lib/core/types.js';
import { FakeSipSockets, type FakeSipSocket } from './fake-sip-socket.js';
import { fakeWebRtc, type FakeWebRtc } from './fake-webrtc.js';

/**
 * An edge we did not write, spoken as raw SIP: the real link (sip-adapter.ts over SIP.js's core) on the fake
 * registrar's WebSocket (fake-sip-socket.ts), with WebRTC faked (fake-webrtc.ts). A test writes the edge's
 * requests and responses byte for byte into the socket and reads what the page sent back, so each RFC rule is
 * held to the wire. Call {@link rawSipWorld} inside a `describe`.
 */

/** Lets time pass: SIP.js's timers and the link's fire in order, promises settling between them. */
export const wait = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** Waits out `work` while time passes as it needs (ICE gathering, say), in steps of 100 ms. */
export async function settled<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const watched = work.finally(() => (done = true));
  for (let step = 0; step < 100 && !done; step++) await wait(100);
  return watched;
}

const token = () => Math.random().toString(36).slice(2, 10);
/** A header's value in a message, case-insensitive; the first one. */
export const header = (message: string | undefined, name: string) => message?.match(new RegExp(`^${name}:\\s*(.*?)\\s*$`, 'im'))?.[1];
/** A message's body (after the blank line). */
export const bodyOf = (message: string) => message.slice(message.indexOf('\r\n\r\n') + 4);

/** An offer as an edge's media server sends it, in the direction asked (RFC 3264 section 8.4 for hold). */
export function edgeSdp(direction = 'sendrecv', version = 1, address = '192.0.2.10'): string {
  return `v=0\r\no=edge 1 ${version} IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 ${address}\r\nt=0 0\r\nm=audio 40000 RTP/SAVPF 0 8 126\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:126 telephone-event/8000\r\na=ice-ufrag:edge\r\na=${direction}\r\n`;
}

/** One call's dialog as the edge keeps it: the page's tag once it answered, and the edge's CSeq. */
export class EdgeDialog {
  readonly callId = `${token()}@edge.invalid`;
  readonly fromTag = token();
  toTag = '';
  cseq = 1;
  readonly #branch = `z9hG4bK${token()}`;

  constructor(
    readonly world: RawSipWorld,
    readonly target: string,
  ) {}

  /** A request of this dialog (the INVITE's own transaction when `branch` is the INVITE's). */
  request(method: string, headers: string[] = [], body = '', contentType = 'application/sdp', branch = `z9hG4bK${token()}`, cseq = this.cseq): string {
    const length = new TextEncoder().encode(body).length;
    return [
      `${method} ${this.target} SIP/2.0`,
      `Via: SIP/2.0/WSS edge.invalid;branch=${branch}`,
      'Max-Forwards: 70',
      `From: <sip:12025550121@edge.invalid>;tag=${this.fromTag}`,
      `To: <sip:agent@edge.invalid>${this.toTag ? `;tag=${this.toTag}` : ''}`,
      `Call-ID: ${this.callId}`,
      `CSeq: ${cseq} ${method}`,
      'Contact: <sip:edge@edge.invalid;transport=ws>',
      ...headers,
      ...(body ? [`Content-Type: ${contentType}`] : []),
      `Content-Length: ${length}`,
      '',
      body,
    ].join('\r\n');
  }

  /** The initial INVITE (its own branch, kept for its CANCEL). */
  invite(headers: string[] = [], body: string = edgeSdp(), contentType?: string): void {
    this.world.inject(this.request('INVITE', ['X-Browser-Call-Id: bc_1', ...headers], body, contentType, this.#branch, 1));
  }

  /** CANCEL of the initial INVITE: the same branch and CSeq number (RFC 3261 section 9.1). */
  cancel(): void {
    this.world.inject(this.request('CANCEL', [], '', undefined, this.#branch, 1));
  }

  /** The ACK of a 2xx to an INVITE of `cseq`; the page's tag is taken from its 2xx. */
  ack(cseq = 1, body = ''): void {
    this.world.inject(this.request('ACK', [], body, 'application/sdp', undefined, cseq));
  }

  /** A new in-dialog request (re-INVITE, PRACK, BYE): the next CSeq. */
  send(method: string, headers: string[] = [], body = ''): number {
    this.world.inject(this.request(method, headers, body, 'application/sdp', undefined, ++this.cseq));
    return this.cseq;
  }

  /** Everything the page sent in this call, in order. */
  get sent(): string[] {
    return this.world.sockets.opened.flatMap((socket) => socket.sent).filter((message) => header(message, 'Call-ID') === this.callId);
  }

  /** The page's responses' status lines with their CSeq (`180 1 INVITE`), in order. */
  get answers(): string[] {
    return this.sent.filter((message) => message.startsWith('SIP/2.0 ')).map((message) => `${message.split(' ')[1]} ${header(message, 'CSeq')}`);
  }

  /** The page's requests in this dialog (`INVITE`, `BYE`), in order. */
  get requests(): string[] {
    return this.sent.filter((message) => !message.startsWith('SIP/2.0 '));
  }

  /** The last response of the page with status `code`, its tag taken as the dialog's. */
  response(code: number): string | undefined {
    const found = this.sent.filter((message) => message.startsWith(`SIP/2.0 ${code} `)).at(-1);
    const tag = found && /;tag=([^;\s]+)/.exec(header(found, 'To') ?? '')?.[1];
    if (tag) this.toTag = tag;
    return found;
  }

  /** Answers the page's request (its re-INVITE or BYE) with `status`, echoing its transaction's headers. */
  answer(request: string, status: string, body = '', extra: string[] = []): void {
    const vias = request.match(/^Via:.*$/gim) ?? [];
    const to = header(request, 'To') ?? '';
    this.world.inject(
      [
        `SIP/2.0 ${status}`,
        ...vias,
        `From: ${header(request, 'From')}`,
        `To: ${to}`,
        `Call-ID: ${this.callId}`,
        `CSeq: ${header(request, 'CSeq')}`,
        'Contact: <sip:edge@edge.invalid;transport=ws>',
        ...extra,
        ...(body ? ['Content-Type: application/sdp'] : []),
        `Content-Length: ${new TextEncoder().encode(body).length}`,
        '',
        body,
      ].join('\r\n'),
    );
  }
}

export interface RawSipWorld {
  readonly sockets: FakeSipSockets;
  readonly rtc: FakeWebRtc;
  /** What the link told the helper, in order. */
  readonly events: LinkEvent[];
  /** The link, registered on its first socket. */
  open(transport?: Partial<SessionTransport>): Promise<SipLink>;
  /** A message from the edge, as a WebSocket text frame on the page's newest socket. */
  inject(message: string): void;
  /** A new dialog from the edge to the page's Contact (read from its REGISTER). */
  dialog(): EdgeDialog;
  /** The ids of the INVITEs the link offered and has not seen withdrawn. */
  offered(): number[];
}

export function rawSipWorld(): RawSipWorld {
  let sockets: FakeSipSockets;
  let rtc: FakeWebRtc;
  let events: LinkEvent[];
  let links: SipLink[];

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    sockets = new FakeSipSockets();
    events = [];
    links = [];
    vi.stubGlobal('WebSocket', sockets.WebSocket);
    rtc = fakeWebRtc();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    const closed = Promise.all(links.map((link) => link.close().catch(() => undefined)));
    await wait(60_000);
    await closed;
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  const world: RawSipWorld = {
    get sockets() {
      return sockets;
    },
    get rtc() {
      return rtc;
    },
    get events() {
      return events;
    },
    async open(transport) {
      const opening = openSipLink({
        transport: { websocketUrl: 'wss://edge.invalid/sip', sipUri: 'sip:agent@edge.invalid', authorizationUsername: 'agent', authorizationPassword: 'secret', iceServers: [], ...transport } as SessionTransport,
        emit: (event) => void events.push(event),
        clock: systemClock,
      });
      await wait(0);
      const link = await opening;
      links.push(link);
      return link;
    },
    inject(message) {
      const socket: FakeSipSocket = sockets.last;
      socket.dispatchEvent(Object.assign(new Event('message'), { data: message }));
    },
    dialog() {
      const register = sockets.opened[0]?.sent.find((message) => message.startsWith('REGISTER '));
      const contact = /<([^>]+)>/.exec(header(register, 'Contact') ?? '')?.[1];
      if (!contact) throw new Error('the page has not registered');
      return new EdgeDialog(world, contact);
    },
    offered() {
      const withdrawn = new Set(events.flatMap((event) => (event.type === 'invite_withdrawn' ? [event.id] : [])));
      return events.flatMap((event) => (event.type === 'invite_received' && !withdrawn.has(event.invite.id) ? [event.invite.id] : []));
    },
  };
  return world;
}
