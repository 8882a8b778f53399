import type { Dialog } from 'sip.js/lib/core/dialogs/dialog.js';
import type { Logger } from 'sip.js/lib/core/log/logger.js';
import { IncomingRequestMessage } from 'sip.js/lib/core/messages/incoming-request-message.js';
import { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import { Parser } from 'sip.js/lib/core/messages/parser.js';
import { TransactionState } from 'sip.js/lib/core/transactions/transaction-state.js';
import type { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';
import type { Call } from './sip-call.js';
import { keepStrongestChallenge } from './sip-digest.js';
import { answerUpdate } from './sip-offer-answer.js';

/**
 * What passes over a flow (RFC 5626: the socket the link's requests go out on) into SIP.js's core, and what its
 * death means for the requests still on it. Through the core's public API only.
 */

/** Answers an UPDATE (RFC 3311) that came in `dialog`, one of the core's. */
export type UpdateHandler = (message: IncomingRequestMessage, dialog: Dialog) => void;

/**
 * Hands one frame to the core: a request, or a response with the strongest of its challenges kept (`keepStrongestChallenge`).
 * An UPDATE goes to `onUpdate` instead, as the core's session dialog has no case for it. A message the core cannot
 * take is logged and dropped (RFC 3261 section 18.3: a malformed one is discarded), never thrown into the page
 * from the socket's event. A CRLF pong is nothing to hand on.
 */
export function receiveFrame(core: UserAgentCore, frame: string, log: Logger, onUpdate?: UpdateHandler): void {
  try {
    const message = frame.trim() ? Parser.parseMessage(frame, log) : undefined;
    if (message instanceof IncomingRequestMessage && message.method === 'UPDATE' && onUpdate) receiveUpdate(core, message, onUpdate);
    else if (message instanceof IncomingRequestMessage) core.receiveIncomingRequestFromTransport(message);
    else if (message instanceof IncomingResponseMessage) {
      keepStrongestChallenge(frame, message);
      core.receiveIncomingResponseFromTransport(message);
    }
  } catch (error) {
    log.error(`a SIP message could not be handled: ${String(error)}`);
  }
}

/**
 * Routes one frame of the link's socket: to the core, and an UPDATE (RFC 3311), which SIP.js's core cannot
 * answer, to the call in progress when it came in that call's dialog (else answered as one of no call).
 * `headers` go in the UPDATE's answer (the Contact and Allow the link sends everywhere).
 */
export function routeFrame(core: UserAgentCore, frame: string, log: Logger, current: Call | undefined, headers: () => string[]): void {
  receiveFrame(core, frame, log, (message, dialog) => answerUpdate(current?.dialog?.id === dialog.id ? current : undefined, message, (options) => core.replyStateless(message, options), headers()));
}

/**
 * An UPDATE matched to its dialog as the core matches a request (RFC 3261 section 12.2.2: the Call-ID, our tag in
 * the To, theirs in the From); none, or no To tag (the page sends no early dialog an UPDATE could need): 481
 * (section 12.2.2). A CSeq not above the dialog's last one is out of order: 500, as the core answers it.
 */
function receiveUpdate(core: UserAgentCore, message: IncomingRequestMessage, onUpdate: UpdateHandler): void {
  const dialog = message.toTag ? core.dialogs.get(message.callId + message.toTag + message.fromTag) : undefined;
  if (!dialog) return void core.replyStateless(message, { statusCode: 481 });
  const last = dialog.remoteSequenceNumber;
  if (last !== undefined && message.cseq <= last) return void core.replyStateless(message, { statusCode: 500 });
  onUpdate(message, dialog);
}

/** The states of a client transaction still waiting for its final response (RFC 3261 section 17.1). */
const WAITING: ReadonlySet<TransactionState> = new Set([TransactionState.Calling, TransactionState.Trying, TransactionState.Proceeding]);

/**
 * Fails every request of ours still waiting for its answer when its socket closed (REGISTER, OPTIONS, a
 * re-INVITE, INFO, BYE). A response goes back on the connection its request came on, or on a new one to the
 * client (RFC 3261 section 18.2.2), and a browser takes no incoming connection (RFC 7118 section 5): that answer
 * will never come. The core waits for Timer B or F (RFC 3261 section 17.1) all the same, and no new REGISTER
 * may go meanwhile (RFC 3261 section 10.2), so connect(), every reconnection attempt and a call's re-INVITE
 * would hang that long. Each transaction is given the 503 SIP.js itself makes up when a send fails.
 */
export function failTransactionsInFlight(core: UserAgentCore): void {
  for (const client of [...core.userAgentClients.values()]) {
    if (!WAITING.has(client.transaction.state)) continue;
    const lost = new IncomingResponseMessage();
    lost.statusCode = 503;
    lost.reasonPhrase = 'Service Unavailable';
    // An INVITE's transaction acknowledges a failure (RFC 3261 section 17.1.1.3) with the response's To.
    lost.setHeader('to', client.message.getHeader('to') ?? '');
    client.transaction.receiveResponse(lost);
  }
}
