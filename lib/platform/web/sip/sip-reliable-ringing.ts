import type { IncomingInviteRequest } from 'sip.js/lib/core/messages/methods/invite.js';
import type { Clock } from '../../../core/clock.js';

/**
 * The page's 180 Ringing to an INVITE, sent reliably when the INVITE requires it (RFC 3262): with `Require:
 * 100rel` and an `RSeq`, retransmitted until the edge's PRACK acknowledges it, the PRACK answered 200. SIP.js's
 * core carries the early dialog the 180 makes and routes the PRACK to it; the retransmission and the RSeq are
 * this file's, as SIP.js's API layer did them. Part of the SIP chunk.
 */

/** RFC 3261 section 17.1.1.1: the retransmission interval starts at T1 and doubles. */
const T1_MS = 500;

/**
 * Sends the INVITE's 180 reliably. RFC 3262 section 3: retransmitted at T1 doubling, until the PRACK whose RAck
 * names it (answered 200), or for 64*T1, after which `onUnacknowledged` refuses the INVITE (the section's 5xx:
 * the edge never acknowledged it). It stops by itself once the INVITE has its final response (the core then
 * refuses to send a provisional one).
 */
export function ringReliably(request: IncomingInviteRequest, clock: Clock, onUnacknowledged: () => void): void {
  // RFC 3262 section 3: the first RSeq is chosen at random, between 1 and 2**31 - 1, and small enough to grow.
  const rseq = 1 + Math.floor(Math.random() * 2 ** 30);
  const cseq = request.message.cseq;
  let timer: unknown;
  let waited = 0;
  const send = () => request.progress({ statusCode: 180, extraHeaders: ['Require: 100rel', `RSeq: ${rseq}`] });
  const { session } = send();
  session.delegate = {
    onPrack: (prack) => {
      // RFC 3262 section 4: a PRACK whose RAck matches no unacknowledged provisional response is refused 481.
      const rack = prack.message.getHeader('RAck')?.trim().split(/\s+/);
      if (rack?.[0] !== String(rseq) || rack[1] !== String(cseq)) return void prack.reject({ statusCode: 481 });
      clock.clearTimeout(timer);
      prack.accept();
    },
  };
  const retransmit = (interval: number) => {
    timer = clock.setTimeout(() => {
      waited += interval;
      try {
        if (waited >= 64 * T1_MS) return onUnacknowledged();
        send();
        retransmit(Math.min(interval * 2, 64 * T1_MS - waited));
      } catch {
        // The INVITE got its final response meanwhile: nothing more to send.
      }
    }, interval);
  };
  retransmit(T1_MS);
}
