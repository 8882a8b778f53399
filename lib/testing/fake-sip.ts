import type { IncomingInvite, SipEvents, SipLink, SipLinkOptions } from '../sip-link.js';

/**
 * A fake SIP peer behind the `openSipLink` seam of createVoiceBrowser: it registers at once (or fails when
 * told to), records what the helper does to it, and lets a test deliver INVITEs and SIP events.
 */

/** An INVITE from the fake service; `outcome` says what the helper did with it. */
export class FakeInvite implements IncomingInvite {
  outcome: 'pending' | 'accepted' | 'rejected' = 'pending';
  /** The service cancelled it (see {@link FakeSip.withdraw}); accepting it then fails, as in SIP.js. */
  withdrawn = false;

  constructor(
    readonly callId: string | undefined,
    private readonly journal: string[],
  ) {}

  accept(): Promise<void> {
    if (this.withdrawn) {
      this.journal.push(`sip accept ${this.callId} after its CANCEL`);
      return Promise.reject(new Error('Invalid session state Terminated'));
    }
    this.outcome = 'accepted';
    this.journal.push(`sip accept ${this.callId}`);
    return Promise.resolve();
  }

  reject(): void {
    this.outcome = 'rejected';
    this.journal.push(`sip reject ${this.callId}`);
  }
}

export class FakeSipLink implements SipLink {
  closed = false;
  endedSessions = 0;
  /** What the outgoing track would be: the last setMuted() call. */
  muted = false;
  /** Digits sent, with the method the fake negotiated. */
  readonly digits: string[] = [];
  /** How the next sendDtmf answers: the method used, or an error (an INFO without answer). */
  dtmfMethod: 'rfc4733' | 'sip-info' = 'rfc4733';
  failNextDtmfWith: unknown;
  resumed = 0;

  constructor(
    readonly options: SipLinkOptions,
    private readonly journal: string[],
  ) {}

  endSession(): void {
    this.endedSessions++;
    this.journal.push('sip endSession');
  }

  setMuted(muted: boolean): void {
    this.muted = muted;
    this.journal.push(`sip mute ${muted}`);
  }

  sendDtmf(digit: string): Promise<'rfc4733' | 'sip-info'> {
    this.journal.push(`sip dtmf ${digit}`);
    if (this.failNextDtmfWith !== undefined) {
      const error = this.failNextDtmfWith;
      this.failNextDtmfWith = undefined;
      return Promise.reject(error);
    }
    this.digits.push(digit);
    return Promise.resolve(this.dtmfMethod);
  }

  resumeAudio(): Promise<void> {
    this.resumed++;
    this.options.events.onAudio('playing');
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    this.journal.push('sip close');
    return Promise.resolve();
  }
}

export class FakeSip {
  readonly links: FakeSipLink[] = [];
  /** When set, the next open fails with it (registration refused, WebSocket down). */
  failOpenWith: unknown;
  #openGate: Promise<void> | undefined;

  constructor(private readonly journal: string[] = []) {}

  /** The `openSipLink` of the helper's `sipParts` seam. */
  readonly openSipLink = async (options: SipLinkOptions): Promise<SipLink> => {
    this.journal.push('sip open');
    await (this.#openGate ?? Promise.resolve());
    if (this.failOpenWith !== undefined) {
      const error = this.failOpenWith;
      this.failOpenWith = undefined;
      throw error;
    }
    const link = new FakeSipLink(options, this.journal);
    this.links.push(link);
    return link;
  };

  /** Keeps the next registration pending until the returned function is called. */
  holdOpen(): () => void {
    let release!: () => void;
    this.#openGate = new Promise<void>((resolve) => (release = resolve)).then(() => {
      this.#openGate = undefined;
    });
    return release;
  }

  get link(): FakeSipLink {
    const link = this.links.at(-1);
    if (!link) throw new Error('no SIP link was opened');
    return link;
  }

  get events(): SipEvents {
    return this.link.options.events;
  }

  /** The service withdraws an INVITE the page has not answered (CANCEL, 487), as the SIP adapter reports it. */
  withdraw(invite: FakeInvite): void {
    invite.withdrawn = true;
    this.journal.push(`sip cancel ${invite.callId}`);
    this.events.onCallChanged(invite.callId);
  }

  /** The service sends an INVITE carrying `X-Browser-Call-Id: callId`. */
  invite(callId: string | undefined): FakeInvite {
    const invite = new FakeInvite(callId, this.journal);
    this.events.onInvite(invite);
    return invite;
  }
}
