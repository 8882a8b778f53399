import type {
  AckableIncomingResponseWithSession,
  IncomingResponse,
  OutgoingInviteRequest,
  OutgoingRequestMessage,
  Session,
  UserAgentCore,
} from 'sip.js/lib/core/index.js';

/**
 * The service side of the INVITE dialog that rings the page's agent: the browser leg of one call, from the
 * INVITE through its answer or refusal to the CANCEL or BYE that ends it (RFC 3261 sections 9, 13, 15). The
 * connection that carries it (sip-connection.ts) builds the request and tells the dialog when its socket closed.
 */

/** Events of the browser leg of one call. */
export interface BrowserLegHandlers {
  onAnswered(answerSdp: string): void;
  /** A final non-2xx answer to the INVITE, including the 487 that answers our own CANCEL (RFC 3261 section 9.1). */
  onRejected(statusCode: number, reasonPhrase: string): void;
  onBye(): void;
  onInfo(contentType: string, body: string): void;
  /**
   * The page offered anew in the dialog (a re-INVITE: an ICE restart after its media path failed); resolves the
   * answer, or rejects when the offer cannot be taken (the re-INVITE is refused 488 and the call goes on).
   */
  onReoffer(offerSdp: string): Promise<string>;
  /** The WebSocket that carried the leg closed while the leg was up: no SIP can reach the page on it any more. */
  onTransportLost(): void;
}

/**
 * How the service's end of a leg went: the page answered its BYE or CANCEL (`answered`, with a 487 race or an
 * error status too), it could not be sent (`unreachable`: the socket died, and no newer flow of the agent), the
 * page never answered (`timeout`), or the leg had already ended (`already`: the page hung up, or refused).
 */
export type LegEnd = 'answered' | 'unreachable' | 'timeout' | 'already';

/** The service's handle on an INVITE it sent to the page. */
export interface BrowserLeg {
  /**
   * CANCEL before the answer, BYE after it; resolves when the page answered that request, or at once for a
   * leg already ended. A socket that died resolves it too: there is nobody left to tell.
   */
  end(): Promise<LegEnd>;
  /**
   * Sends a REFER in the answered leg's dialog asking the page to call `target` (RFC 3515); resolves with the
   * page's final status code, or undefined when the leg is not up.
   */
  refer(target: string): Promise<number | undefined>;
}

/** What the INVITE that rings the agent carries. */
export interface InviteOptions {
  callId: string;
  /**
   * The header that names the call to the page: `X-Browser-Call-Id` for a browser call, `X-Call-Id` for a
   * queued caller a dequeue bridges to the agent (DESIGN.md).
   */
  callIdHeader: 'X-Browser-Call-Id' | 'X-Call-Id';
  /** Headers beyond it: a monitor leg names the call it listens to in `X-Monitored-Call-Id`. */
  extraHeaders?: string[];
  from: string;
  offerSdp: string;
  handlers: BrowserLegHandlers;
}

/**
 * How long an ending leg waits for the page to answer its BYE or CANCEL. RFC 3261 timer F gives up on a
 * non-INVITE transaction only after 32 s; a page gone quiet must not hold the call in `ending` that long.
 */
const END_TIMEOUT_MS = 4000;

/** One INVITE the service sent, and the dialog it makes once the page answers. */
export class InviteDialog implements BrowserLeg {
  private session: Session | undefined;
  /** The service gave the leg up (CANCEL or BYE sent) or the page refused it: no further end() is due. */
  private ended = false;
  /** Not ended and not hung up by the page: told if the socket closes under it. */
  private live = true;
  /** Settles the CANCEL sent before an answer, once the page's 487 (or a racing 2xx) arrives. */
  private settleCancel: (() => void) | undefined;
  /** Settles end(), while the page has not answered its BYE or CANCEL yet. */
  private settleEnd: (() => void) | undefined;
  private readonly outgoing: OutgoingInviteRequest;

  /**
   * Sends the INVITE `request` through `core`; `isOpen` tells whether SIP can still reach the page (its socket, or
   * its newest flow under RFC 5626 outbound); `onSettled` hears when the dialog is over for good.
   */
  constructor(
    core: UserAgentCore,
    request: OutgoingRequestMessage,
    private readonly handlers: BrowserLegHandlers,
    private readonly isOpen: () => boolean,
    private readonly onSettled: () => void = () => undefined,
  ) {
    this.outgoing = core.invite(request, {
      onAccept: (response) => this.onAccept(response),
      onReject: (response) => this.onReject(response),
    });
  }

  /** Neither up nor ending: the connection may forget it. */
  get over(): boolean {
    return !this.live && this.settleEnd === undefined;
  }

  /** Answered and neither side has ended it: a page that comes back on a new flow can still be sent its BYE. */
  get up(): boolean {
    return this.session !== undefined && !this.ended;
  }

  end(): Promise<LegEnd> {
    if (this.ended) return Promise.resolve('already');
    this.ended = true;
    this.live = false;
    return new Promise<LegEnd>((resolve) => {
      const done = (how: LegEnd) => {
        clearTimeout(timer);
        if (this.settleEnd === settle) this.settleEnd = undefined;
        resolve(how);
        this.onSettled();
      };
      // The socket closed meanwhile: nobody is left to answer.
      const settle = () => done('unreachable');
      const timer = setTimeout(() => done('timeout'), END_TIMEOUT_MS);
      this.settleEnd = settle;
      if (!this.isOpen()) return settle();
      if (this.session) this.session.bye({ onAccept: () => done('answered'), onReject: () => done('answered') });
      else {
        this.settleCancel = () => done('answered');
        this.outgoing.cancel();
      }
    });
  }

  refer(target: string): Promise<number | undefined> {
    const session = this.session;
    if (!session || !this.up || !this.isOpen()) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const answered = (response: { message: { statusCode?: number } }) => resolve(response.message.statusCode);
      session.refer({ onAccept: answered, onReject: answered }, { extraHeaders: [`Refer-To: <${target}>`] });
    });
  }

  /** The socket closed: an end() still waiting for the page settles at once (`unreachable`), as nobody is left to answer. */
  settleEnding(): void {
    this.settleEnd?.();
  }

  /** The socket closed: a leg still up learns that no SIP reaches the page on it any more. */
  transportLost(): void {
    if (!this.live) return;
    this.live = false;
    this.handlers.onTransportLost();
  }

  private onAccept(response: AckableIncomingResponseWithSession): void {
    response.ack();
    if (this.ended || this.session) {
      // A 2xx after we gave up (a CANCEL race) still creates a dialog: end it (RFC 3261 section 15).
      if (!this.session) {
        response.session.bye();
        this.settleCancel?.();
      }
      return;
    }
    this.session = response.session;
    this.session.delegate = {
      onBye: (bye) => {
        bye.accept();
        this.ended = true;
        this.live = false;
        this.handlers.onBye();
        this.onSettled();
      },
      onInfo: (info) => {
        info.accept();
        this.handlers.onInfo(info.message.getHeader('content-type') ?? '', info.message.body);
      },
      onInvite: (reinvite) => {
        // RFC 3261 section 14.2: answered like the first INVITE, in the same dialog; SIP.js core keeps the
        // dialog's offer/answer state and the ACK.
        this.handlers.onReoffer(reinvite.message.body).then(
          (sdp) => void reinvite.accept({ statusCode: 200, body: { contentDisposition: 'session', contentType: 'application/sdp', content: sdp } }),
          () => void reinvite.reject({ statusCode: 488, reasonPhrase: 'Not Acceptable Here' }),
        );
      },
    };
    this.handlers.onAnswered(response.message.body);
  }

  private onReject(response: IncomingResponse): void {
    const wasEnded = this.ended;
    this.ended = true;
    this.live = false;
    this.handlers.onRejected(response.message.statusCode ?? 500, response.message.reasonPhrase ?? '');
    if (wasEnded) this.settleCancel?.(); // the 487 that answers our CANCEL
  }
}
