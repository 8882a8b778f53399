import type { VoiceBrowserError } from '../core/errors.js';
import { microphoneError } from '../core/microphone-error.js';
import type { IncomingInvite, LinkEvent, SipLink, SipLinkOptions } from '../runtime/sip-link.js';
import type { CallQuality, CallWarning } from '../core/types.js';

/**
 * A fake SIP peer behind the `openSipLink` seam of createVoiceBrowser: it registers at once (or fails when
 * told to), records what the helper does to it, and lets a test deliver INVITEs and SIP events.
 */

/**
 * What a SIP link tells the helper, by name, each told as the real link tells it (the {@link LinkEvent} it
 * emits): a test's way to play the SIP side.
 */
export interface FakeSipEvents {
  onInvite(invite: IncomingInvite): void;
  onInviteWithdrawn(id: number, callId: string | undefined): void;
  onSessionEnded(callId: string | undefined): void;
  onCallChanged(callId: string | undefined): void;
  onMediaConnected(callId: string | undefined): void;
  onMediaReconnecting(callId: string | undefined): void;
  onMediaFailed(callId: string | undefined): void;
  /** The far end put the call on hold (`held` true, RFC 3264 section 8.4), or took it off. */
  onMediaHeld(callId: string | undefined, held: boolean): void;
  onQuality(callId: string | undefined, quality: CallQuality): void;
  onMicrophone(callId: string | undefined, outcome: 'replaced' | 'unavailable'): void;
  onWarning(callId: string | undefined, warning: CallWarning, raised: boolean): void;
  onAudio(audio: 'playing' | 'blocked'): void;
  onReconnecting(): void;
  onReconnected(): void;
  onDisconnected(error: VoiceBrowserError): void;
}

/** {@link FakeSipEvents} over a link's `emit`. */
export function namedEvents(emit: (event: LinkEvent) => void): FakeSipEvents {
  return {
    onInvite: (invite) => emit({ type: 'invite_received', invite: { id: invite.id, callId: invite.callId, at: invite.at, ...(invite.caller ? { caller: invite.caller } : {}) } }),
    onInviteWithdrawn: (id, callId) => emit({ type: 'invite_withdrawn', id, callId }),
    onSessionEnded: (callId) => emit({ type: 'session_ended', callId }),
    onCallChanged: (callId) => emit({ type: 'call_changed', callId }),
    onMediaConnected: (callId) => emit({ type: 'media_connected', callId }),
    onMediaReconnecting: (callId) => emit({ type: 'media_reconnecting', callId }),
    onMediaFailed: (callId) => emit({ type: 'media_failed', callId }),
    onMediaHeld: (callId, held) => emit({ type: held ? 'media_held' : 'media_resumed', callId }),
    onQuality: (callId, quality) => emit({ type: 'quality', callId, quality }),
    onMicrophone: (callId, outcome) => emit({ type: 'microphone', callId, outcome }),
    onWarning: (callId, warning, raised) => emit({ type: 'warning', callId, warning, raised }),
    onAudio: (audio) => emit({ type: 'audio', audio }),
    onReconnecting: () => emit({ type: 'socket_dropped' }),
    onReconnected: () => emit({ type: 'socket_restored' }),
    onDisconnected: (error) => emit({ type: 'link_gone', error: error.toStatus() }),
  };
}

let lastInvite = 0;

/** An INVITE from the fake service; `outcome` says what the helper did with it. */
export class FakeInvite implements IncomingInvite {
  readonly id = ++lastInvite;
  outcome: 'pending' | 'accepted' | 'rejected' = 'pending';
  /** The service cancelled it (see {@link FakeSip.withdraw}); accepting it then fails, as in SIP.js. */
  withdrawn = false;

  constructor(
    readonly callId: string | undefined,
    private readonly journal: string[],
    readonly at: number,
    /** A queue's caller (the INVITE carries `X-Call-Id`): their number. */
    readonly caller?: string,
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

  /** The options the helper opened the link with, and its events by name ({@link FakeSipEvents}). */
  readonly options: SipLinkOptions & { events: FakeSipEvents };
  /** The INVITEs delivered on this link, by id. */
  readonly invites = new Map<number, FakeInvite>();

  constructor(
    options: SipLinkOptions,
    private readonly journal: string[],
  ) {
    this.options = { ...options, events: namedEvents(options.emit) };
  }

  /**
   * As the real link: an INVITE the service withdrew, before or during the answer, settles quietly; any other
   * failure rejects with a coded error, as the real link's (`microphoneError`).
   */
  answer(id: number): Promise<void> {
    const invite = this.invites.get(id);
    return invite ? invite.accept().catch((error: unknown) => (invite.withdrawn ? undefined : Promise.reject(microphoneError(error)))) : Promise.resolve();
  }

  decline(id: number): void {
    const invite = this.invites.get(id);
    if (invite && !invite.withdrawn) invite.reject();
  }

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

  get events(): FakeSipEvents {
    return this.link.options.events;
  }

  /** Tells the helper what the last link says, as the real link tells it. */
  emit(event: LinkEvent): void {
    this.link.options.emit(event);
  }

  /** The service withdraws an INVITE the page has not answered (CANCEL, 487), as the SIP adapter reports it. */
  withdraw(invite: FakeInvite): void {
    invite.withdrawn = true;
    this.journal.push(`sip cancel ${invite.callId}`);
    this.events.onInviteWithdrawn(invite.id, invite.callId);
  }

  /**
   * The service sends an INVITE carrying `X-Browser-Call-Id: callId`; with `caller`, a queue's caller's
   * (`X-Call-Id: callId`, From the caller): an offer when the page awaits no call.
   */
  invite(callId: string | undefined, caller?: string): FakeInvite {
    const link = this.link;
    const invite = new FakeInvite(callId, this.journal, link.options.clock.now(), caller);
    link.invites.set(invite.id, invite);
    this.events.onInvite(invite);
    return invite;
  }
}
