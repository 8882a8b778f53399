import type {
  AckableIncomingResponseWithSession,
  IncomingResponse,
  OutgoingInviteRequest,
  OutgoingRequestMessage,
  PrackableIncomingResponseWithSession,
  Session,
  UserAgentCore,
} from 'sip.js/lib/core/index.js';
import type { InviteEdgeRules } from './edge/edge-invite.js';
import { sendReinvite } from './edge/edge-requests.js';
import { SessionRefresher } from './edge/edge-session-timer.js';

/**
 * The service side of the INVITE dialog that rings the page's agent: the browser leg of one call, from the
 * INVITE through its answer or refusal to the CANCEL or BYE that ends it (RFC 3261 sections 9, 13, 15). The
 * connection that carries it (`SipConnection`) builds the request and tells the dialog when its socket closed.
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
  /**
   * The page's 2xx to an offerless INVITE brought its offer (RFC 3261 section 13.2.1); resolves the answer the ACK
   * carries. A leg without it is never sent an offerless INVITE.
   */
  onOffer?(offerSdp: string): Promise<string>;
  /** A request the service sent in the dialog of its own accord (a PRACK, a session refresh, a hold) was answered. */
  onEdgeRequest?(method: string, statusCode: number): void;
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
   * page's final status code (the edge's 477 when the flow of the dialog's target is gone), or undefined when
   * the leg is not up.
   */
  refer(target: string): Promise<number | undefined>;
  /**
   * Holds the call (a re-INVITE offering `a=sendonly`, RFC 3264 section 8.4) or takes it off hold (`a=sendrecv`);
   * resolves with the page's final status code, or undefined when the leg is not up.
   */
  hold(held: boolean): Promise<number | undefined>;
}

/** What the INVITE that rings the agent carries. */
export interface InviteOptions {
  callId: string;
  /**
   * The header that names the call to the page: `X-Browser-Call-Id` for a browser call, `X-Call-Id` for a
   * queued caller a dequeue bridges to the agent (docs/simulator.md).
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
  /** The service's latest SDP in the dialog (its offer, or the answer it gave), which its own re-offers repeat. */
  private localSdp: string;
  /** How many times the service offered again in the dialog: each raises the SDP's version (RFC 3264 section 8). */
  private reoffers = 0;
  private held = false;
  private refresher: SessionRefresher | undefined;

  /**
   * Sends the INVITE `request` through `core`; `isOpen` tells whether SIP can still reach the page (the flow its
   * dialog's target came on, `DialogFlows`); `onSettled` hears when the dialog is over for good.
   */
  constructor(
    core: UserAgentCore,
    request: OutgoingRequestMessage,
    private readonly handlers: BrowserLegHandlers,
    private readonly isOpen: (dialogId: string | undefined) => boolean,
    private readonly onSettled: () => void = () => undefined,
    offerSdp = '',
    private readonly rules: InviteEdgeRules = { prack: false, sessionRefreshSeconds: undefined, offerless: false },
  ) {
    this.localSdp = offerSdp;
    this.outgoing = core.invite(request, {
      onAccept: (response) => this.onAccept(response),
      onReject: (response) => this.onReject(response),
      onProgress: (response) => this.onProgress(response),
    });
  }

  /** The dialog's id in the service's core (Call-ID, local tag, remote tag), once the page answered. */
  get dialogId(): string | undefined {
    return this.session?.id;
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
    this.refresher?.stop();
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
      if (!this.isOpen(this.dialogId)) return settle();
      // An edge that could not send the BYE answers it itself (477, or 408 when nothing came): nobody heard it.
      const byeEnded = (response: { message: { statusCode?: number } }) => done([408, 477].includes(response.message.statusCode ?? 0) ? 'unreachable' : 'answered');
      if (this.session) this.session.bye({ onAccept: () => done('answered'), onReject: byeEnded });
      else {
        this.settleCancel = () => done('answered');
        this.outgoing.cancel();
      }
    });
  }

  refer(target: string): Promise<number | undefined> {
    const session = this.session;
    // A dead flow is the edge's to tell: it answers 477 (`DialogFlows`).
    if (!session || !this.up) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const answered = (response: { message: { statusCode?: number } }) => resolve(response.message.statusCode);
      session.refer({ onAccept: answered, onReject: answered }, { extraHeaders: [`Refer-To: <${target}>`] });
    });
  }

  hold(held: boolean): Promise<number | undefined> {
    const session = this.session;
    if (!session || !this.up) return Promise.resolve(undefined);
    this.held = held;
    return sendReinvite(session, this.localSdp, ++this.reoffers, held ? 'sendonly' : 'sendrecv').then((status) => {
      this.handlers.onEdgeRequest?.('INVITE', status);
      return status;
    });
  }

  /** Stops what runs on its own (the session refresh): the connection drops the dialog. */
  dispose(): void {
    this.refresher?.stop();
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
    if (this.rules.offerless && !this.ended && !this.session) return void this.onOfferInAnswer(response);
    response.ack();
    if (this.ended || this.session) {
      // A 2xx after we gave up (a CANCEL race) still creates a dialog: end it (RFC 3261 section 15).
      if (!this.session) {
        response.session.bye();
        this.settleCancel?.();
      }
      return;
    }
    this.establish(response.session);
    this.handlers.onAnswered(response.message.body);
  }

  /**
   * The page's 2xx to an offerless INVITE carries its offer: the ACK carries the service's answer (RFC 3261
   * section 13.2.2.4). An offer the service cannot take is still ACKed, and the dialog ended with a BYE.
   */
  private onOfferInAnswer(response: AckableIncomingResponseWithSession): void {
    const answer = this.handlers.onOffer?.(response.message.body) ?? Promise.reject(new Error('no offer handler'));
    answer.then(
      (sdp) => {
        this.localSdp = sdp;
        response.ack({ body: { contentDisposition: 'session', contentType: 'application/sdp', content: sdp } });
        if (this.ended) return void response.session.bye();
        this.establish(response.session);
      },
      () => {
        response.ack();
        response.session.bye();
        this.ended = true;
        this.live = false;
        this.onSettled();
      },
    );
  }

  /** RFC 3262 section 4: a reliable provisional response is acknowledged with a PRACK. */
  private onProgress(response: PrackableIncomingResponseWithSession): void {
    const rseq = response.message.getHeader('rseq');
    if (!this.rules.prack || !/\b100rel\b/i.test(response.message.getHeader('require') ?? '') || !rseq) return;
    // RFC 3262 section 7.2: RAck names the response's RSeq and the INVITE's CSeq (SIP.js's core adds none).
    const prack = response.prack({ extraHeaders: [`RAck: ${rseq.trim()} ${response.message.cseq} INVITE`] });
    const answered = (final: IncomingResponse) => this.handlers.onEdgeRequest?.('PRACK', final.message.statusCode ?? 0);
    prack.delegate = { onAccept: answered, onReject: answered };
  }

  /** The page answered: its dialog's requests are taken, and the session refresh starts. */
  private establish(session: Session): void {
    this.session = session;
    if (this.rules.sessionRefreshSeconds !== undefined) {
      this.refresher = new SessionRefresher(session, this.rules.sessionRefreshSeconds * 2, () => ({ sdp: this.localSdp, version: ++this.reoffers, held: this.held }), (method, status) =>
        this.handlers.onEdgeRequest?.(method, status),
      );
    }
    this.session.delegate = {
      onBye: (bye) => {
        bye.accept();
        this.ended = true;
        this.live = false;
        this.refresher?.stop();
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
          (sdp) => {
            this.localSdp = sdp;
            reinvite.accept({ statusCode: 200, body: { contentDisposition: 'session', contentType: 'application/sdp', content: sdp } });
          },
          () => void reinvite.reject({ statusCode: 488, reasonPhrase: 'Not Acceptable Here' }),
        );
      },
    };
  }

  private onReject(response: IncomingResponse): void {
    const wasEnded = this.ended;
    this.ended = true;
    this.live = false;
    this.handlers.onRejected(response.message.statusCode ?? 500, response.message.reasonPhrase ?? '');
    if (wasEnded) this.settleCancel?.(); // the 487 that answers our CANCEL
  }
}
