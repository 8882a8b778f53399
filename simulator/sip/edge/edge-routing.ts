import { IncomingRequestMessage, IncomingResponseMessage, LoggerFactory, Parser } from 'sip.js/lib/core/index.js';

/**
 * How a real edge routes what the service sends in a dialog (RFC 3261 sections 12.2.1.1 and 18.2.2): a request
 * goes to the dialog's remote target, which a WebSocket edge aliases to the connection the target came on
 * (Kamailio's `add_contact_alias()` / `handle_ruri_alias()`), and a response goes back down the connection its
 * request came on. A target is learned from the page's 2xx to the INVITE and moved by its target refreshes (a
 * re-INVITE or UPDATE it sends, or its 2xx to ours): never to an agent's newest socket by itself (that would
 * be RFC 5626 section 5.3's flow routing, which no edge applies to a WebSocket client without GRUU).
 */

const loggerFactory = new LoggerFactory();
loggerFactory.builtinEnabled = false;
const logger = loggerFactory.getLogger('sim.edge-routing');

/** The methods whose request or 2xx carries a new remote target (RFC 3261 section 12.2, RFC 3311 section 5.1). */
const TARGET_REFRESH = new Set(['INVITE', 'UPDATE']);

/** How many responses' ways back a connection remembers: enough for every transaction of a few calls. */
const ARRIVALS_KEPT = 256;

/** What routing needs of an outgoing message: its dialog (from the service's side) or the branch it answers. */
export type Outgoing = { kind: 'request'; method: string; dialogId: string | undefined } | { kind: 'response'; branch: string } | { kind: 'other' };

/** Reads what the service's core is about to send. */
export function readOutgoing(text: string): Outgoing {
  const message = Parser.parseMessage(text, logger);
  if (message instanceof IncomingRequestMessage) {
    return { kind: 'request', method: message.method, dialogId: message.toTag ? message.callId + message.fromTag + message.toTag : undefined };
  }
  if (message instanceof IncomingResponseMessage) return { kind: 'response', branch: message.viaBranch };
  return { kind: 'other' };
}

/** The dialog (from the service's side: Call-ID, service's tag, page's tag) of a request the page sent in one. */
export function dialogOfIncomingRequest(message: IncomingRequestMessage): string | undefined {
  return message.toTag ? message.callId + message.toTag + message.fromTag : undefined;
}

/** Whether the page's request moves its dialog's remote target to the connection it came on. */
export function refreshesTarget(message: IncomingRequestMessage): boolean {
  return TARGET_REFRESH.has(message.method);
}

/**
 * The dialog of a page's response that moves the remote target: a 2xx to the service's INVITE or UPDATE, which
 * carries the page's Contact (RFC 3261 section 12.1.2, RFC 3311 section 5.1).
 */
export function dialogOfTargetResponse(message: IncomingResponseMessage): string | undefined {
  const status = message.statusCode ?? 0;
  if (status < 200 || status >= 300 || !TARGET_REFRESH.has(message.method) || !message.toTag) return undefined;
  return message.callId + message.fromTag + message.toTag;
}

/**
 * The response an edge gives the service for a request it could not send on (Kamailio's `477 Send Failed`,
 * sl_send_reply after a failed t_relay): it answers the request in its own transaction.
 */
export function sendFailedResponse(requestText: string): string {
  const head = requestText.split('\r\n\r\n')[0] ?? '';
  const keep = head.split('\r\n').filter((line) => /^(via|v|from|f|to|t|call-id|i|cseq):/i.test(line));
  return ['SIP/2.0 477 Send Failed', ...keep, 'Content-Length: 0', '', ''].join('\r\n');
}

/** One core's dialog targets and the ways back of requests that came on another connection. */
export class DialogFlows<Flow> {
  private readonly targets = new Map<string, Flow>();
  private readonly arrivals = new Map<string, Flow>();

  /** The flow the dialog's requests go down, when its target came on another connection than the core's own. */
  targetOf(dialogId: string | undefined): Flow | undefined {
    return dialogId === undefined ? undefined : this.targets.get(dialogId);
  }

  /** The page's latest target for the dialog came on `flow`. */
  learnTarget(dialogId: string, flow: Flow): void {
    this.targets.set(dialogId, flow);
  }

  /** The connection the request of `branch` came on, for its responses. */
  arrivalOf(branch: string): Flow | undefined {
    return this.arrivals.get(branch);
  }

  /** A request of `branch` came on `flow`. */
  arrived(branch: string, flow: Flow): void {
    this.arrivals.set(branch, flow);
    if (this.arrivals.size > ARRIVALS_KEPT) this.arrivals.delete(this.arrivals.keys().next().value ?? '');
  }

  /** The dialogs whose target is `flow`. */
  dialogsOn(flow: Flow): string[] {
    return [...this.targets].filter(([, target]) => target === flow).map(([dialogId]) => dialogId);
  }

  clear(): void {
    this.targets.clear();
    this.arrivals.clear();
  }
}
