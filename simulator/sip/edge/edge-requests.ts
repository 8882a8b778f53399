import { NonInviteClientTransaction, SessionDialog, UserAgentClient, type Session } from 'sip.js/lib/core/index.js';
import { reofferSdp } from './edge-invite.js';

/**
 * The requests an edge sends in an answered dialog of its own accord: a re-INVITE that offers the same session
 * again (a session refresh, RFC 4028 section 7.4, or a hold, RFC 3264 section 8.4), and an UPDATE without a
 * body (RFC 3311, a refresh that needs no offer). Each resolves with the page's final status code.
 */

/** What a final response tells: its status code (a transport error reads as the 503 SIP.js makes of it). */
type Final = { message: { statusCode?: number } };
const statusOf = (response: Final): number => response.message.statusCode ?? 0;

/** Sends a re-INVITE offering `sdp` with its version raised by `version` and `direction`; ACKs a 2xx. */
export function sendReinvite(session: Session, sdp: string, version: number, direction: 'sendrecv' | 'sendonly', extraHeaders: string[] = []): Promise<number> {
  // RFC 3261 section 14.1: a re-INVITE is a target refresh and carries the sender's Contact (SIP.js's core adds none).
  const contact = session instanceof SessionDialog ? [`Contact: ${session.userAgentCore.configuration.contact.toString()}`] : [];
  return new Promise((resolve) => {
    session.invite(
      {
        onAccept: (response) => {
          response.ack();
          resolve(statusOf(response));
        },
        onReject: (response) => resolve(statusOf(response)),
      },
      { extraHeaders: [...contact, ...extraHeaders], body: { contentDisposition: 'session', contentType: 'application/sdp', content: reofferSdp(sdp, version, direction) } },
    );
  });
}

/** Sends an UPDATE without a body in the dialog (RFC 3311 section 5.1); SIP.js's core has no method for it. */
export function sendUpdate(session: Session, extraHeaders: string[] = []): Promise<number> {
  if (!(session instanceof SessionDialog)) return Promise.resolve(0);
  return new Promise((resolve) => {
    const message = session.createOutgoingRequestMessage('UPDATE', { extraHeaders });
    new UserAgentClient(NonInviteClientTransaction, session.userAgentCore, message, {
      onAccept: (response) => resolve(statusOf(response)),
      onReject: (response) => resolve(statusOf(response)),
    });
  });
}
