import type { Session } from 'sip.js/lib/core/index.js';
import { sendReinvite, sendUpdate } from './edge-requests.js';

/**
 * The service's side of an RFC 4028 session timer as Asterisk runs it: the refresher (the INVITE named itself
 * `refresher=uac`) refreshes at half the interval (section 10), by re-INVITE and UPDATE in turn, so a page is
 * met with both.
 */

/** What a re-INVITE refresh offers: the service's latest SDP, its next version, and whether the call is held. */
export type RefreshOffer = () => { sdp: string; version: number; held: boolean };

/** Refreshes one answered dialog until stopped. */
export class SessionRefresher {
  private readonly timer: ReturnType<typeof setInterval>;
  private refreshes = 0;
  /** A refresh still unanswered: the next waits for it (one INVITE transaction at a time, RFC 3261 section 14.1). */
  private pending = false;

  constructor(
    private readonly session: Session,
    private readonly intervalSeconds: number,
    private readonly offer: RefreshOffer,
    private readonly onAnswered: (method: 'INVITE' | 'UPDATE', statusCode: number) => void,
  ) {
    this.timer = setInterval(() => void this.refresh(), (intervalSeconds * 1000) / 2);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async refresh(): Promise<void> {
    if (this.pending) return;
    this.pending = true;
    try {
      await this.send();
    } finally {
      this.pending = false;
    }
  }

  private async send(): Promise<void> {
    const headers = [`Session-Expires: ${this.intervalSeconds};refresher=uac`];
    if (this.refreshes++ % 2 === 0) {
      const { sdp, version, held } = this.offer();
      this.onAnswered('INVITE', await sendReinvite(this.session, sdp, version, held ? 'sendonly' : 'sendrecv', headers));
    } else {
      this.onAnswered('UPDATE', await sendUpdate(this.session, headers));
    }
  }
}
