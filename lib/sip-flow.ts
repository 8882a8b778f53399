import { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import { TransactionState } from 'sip.js/lib/core/transactions/transaction-state.js';
import type { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';

/**
 * What a dead flow (RFC 5626: the socket a request went out on) means for the requests still on it. Over SIP.js's
 * core, through its public API only.
 */

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
