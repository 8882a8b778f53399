import { endWhenQuiet } from './call-runner.js';
import type { CallFacts } from './call-facts.js';
import { LegMedia } from './leg-media.js';
import type { MediaCounts, MediaPeer } from '../media/media.js';
import type { CallMixer } from '../media/mixer.js';
import type { BrowserLeg, SipServer } from '../sip/sip-server.js';
import { TimerSet } from './timer-set.js';

/**
 * One dequeue's bridge (spec 4.8; docs/simulator.md): the INVITE carrying `X-Call-Id` that rings the claiming
 * agent's page, and the queued caller's audio on the far side (the simulator's media peer: a tone, then an echo).
 * The queue desk (`QueueDesk`) owns the call's record; the bridge tells it how its leg went, each at most once and
 * only after the leg and the media are down where that applies.
 */

/** How the bridge went, as the desk records it. */
export interface BridgeOutcome {
  /** The agent answered: the call is `established`. */
  answered(): void;
  /** The agent did not take the call (no answer in time, refused, its socket closed, an unusable answer): back to the head. */
  unanswered(): void;
  /** The agent hung up, or its audio stopped after its socket closed: the call is over. */
  ended(): void;
}

/** What a bridge needs: the registrar, the caller's media, the answer timeout, the clock. */
export interface QueueBridgeDeps {
  sip: SipServer;
  createMedia(): MediaPeer;
  agentAnswerTimeoutMs: number;
  mediaTimeoutMs?: number | undefined;
  now(): number;
}

/** The INVITE of one dequeue to one agent, and the caller's media behind it. */
export class QueueBridge {
  private media: LegMedia | undefined;
  private leg: BrowserLeg | undefined;
  private readonly timers = new TimerSet();
  /** Set once the outcome is decided or the desk ends the bridge: nothing more is told. */
  private settled = false;

  constructor(
    private readonly callId: string,
    private readonly facts: CallFacts,
    private readonly deps: QueueBridgeDeps,
    private readonly outcome: BridgeOutcome,
  ) {}

  /** Both parties' audio mixed, while the caller's media runs (`CallMixer`). */
  mixer(): CallMixer | undefined {
    return this.media?.mixer;
  }

  /** Media counts while the caller's media runs (the desk keeps the last ones in the facts). */
  counts(): MediaCounts | null {
    return this.media?.counts() ?? null;
  }

  /** Creates the caller's offer and rings the agent registered under `sessionId`; false when it is not registered. */
  async start(sessionId: string, callerNumber: string): Promise<boolean> {
    const media = new LegMedia(this.deps.createMedia(), this.facts, () => this.stamp(), this.deps.now);
    this.media = media;
    const offerSdp = await media.createOffer();
    this.leg = this.deps.sip.invite(sessionId, {
      callId: this.callId,
      callIdHeader: 'X-Call-Id',
      from: callerNumber,
      offerSdp,
      handlers: {
        onAnswered: (sdp) => void this.onAnswered(sdp),
        onRejected: (status) => {
          this.facts.browserFinalStatus = status;
          void this.settle('unanswered');
        },
        onBye: () => void this.settle('ended'),
        onInfo: (contentType, body) => media.info(contentType, body),
        onReoffer: (sdp) => (this.settled ? Promise.reject(new Error('the call has no media to offer to')) : media.reoffer(sdp)),
        onTransportLost: () => this.onTransportLost(),
      },
    });
    if (!this.leg || this.settled) {
      const sent = Boolean(this.leg);
      await this.stop();
      return sent;
    }
    this.facts.inviteSentAt = this.stamp();
    this.timers.after(this.deps.agentAnswerTimeoutMs, () => this.settle('unanswered'));
    return true;
  }

  /** The desk ends the bridge (a hangup of either side): CANCEL or BYE, media closed; no outcome is told. */
  async end(): Promise<void> {
    this.settled = true;
    await this.stop();
  }

  private async onAnswered(sdp: string): Promise<void> {
    this.timers.clear();
    try {
      await this.media?.acceptAnswer(sdp);
    } catch {
      return this.settle('unanswered');
    }
    if (!this.settled) this.outcome.answered();
  }

  /** The agent's socket closed: before its answer the caller goes back; after it, the call lives while its audio does. */
  private onTransportLost(): void {
    if (this.settled) return;
    this.facts.transportLostAt = this.stamp();
    if (this.facts.browserAnsweredAt === null) return void this.settle('unanswered');
    endWhenQuiet(this.timers, this.deps.mediaTimeoutMs, this.deps.now, () => this.media?.lastHeardAt() ?? 0, () => void this.settle('ended'));
  }

  /** Takes the leg and media down, then tells the desk how it went (once). */
  private async settle(how: keyof BridgeOutcome): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    await this.stop();
    this.outcome[how]();
  }

  private async stop(): Promise<void> {
    this.timers.clear();
    const leg = this.leg;
    this.leg = undefined;
    if (leg) this.facts.browserLegEnd = await leg.end();
    const media = this.media;
    this.media = undefined;
    await media?.close();
  }

  private stamp(): string {
    return new Date(this.deps.now()).toISOString();
  }
}
