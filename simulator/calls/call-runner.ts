import { initialFacts, type CallFacts } from './call-facts.js';
import { LegMedia } from './leg-media.js';
import type { Impairment, MediaDirection } from '../media/impairment.js';
import type { MediaCounts, MediaPeer } from '../media/media.js';
import type { CallMixer } from '../media/mixer.js';
import type { BrowserCall, BrowserCallState, CallError } from '../service/model.js';
import { recipientFor, type RecipientTimings } from '../service/recipients.js';
import type { BrowserLeg, SipServer } from '../sip/sip-server.js';
import { TimerSet } from './timer-set.js';

/**
 * Drives one browser call through its two legs: the INVITE that rings the page's agent, then the simulated
 * recipient (`recipientFor`), and the teardown of both.
 *
 * @remarks
 * Every change of the call record goes through `deps.update`, the service's one place that bumps `revision`
 * and derives `busy`. The runner never marks a call terminal before both legs are down (spec 3.2). Its moves
 * are the arrows of the contract's browser call diagram (`BROWSER_CALL_TRANSITIONS`), which the tests hold it to.
 */

/** How long a call whose SIP WebSocket closed lives on without audio from the browser, by default. */
export const DEFAULT_MEDIA_TIMEOUT_MS = 5000;

/**
 * After the page's SIP socket closed under an answered leg: runs `end` once no RTP came from the browser for
 * `timeoutMs` (default {@link DEFAULT_MEDIA_TIMEOUT_MS}), as a real service's RTP timeout ends a call nobody is on.
 */
export function endWhenQuiet(timers: TimerSet, timeoutMs: number | undefined, now: () => number, lastHeardAt: () => number, end: () => void): void {
  const quietLimit = timeoutMs ?? DEFAULT_MEDIA_TIMEOUT_MS;
  const lostAt = now();
  const check = (): void => {
    const quietFor = now() - Math.max(lostAt, lastHeardAt());
    if (quietFor >= quietLimit) end();
    else timers.after(quietLimit - quietFor, check);
  };
  timers.after(quietLimit, check);
}

/** What a runner is given: the registrar to ring the agent through, media, the service's update, timings, clock. */
export interface CallRunnerDeps {
  sip: SipServer;
  createMedia(): MediaPeer;
  update(callId: string, patch: Partial<BrowserCall>): BrowserCall;
  timings: RecipientTimings & { agentAnswerTimeoutMs: number; mediaTimeoutMs?: number | undefined };
  now(): number;
}

/** One call's runner, from its INVITE to both legs down; the service keeps one per call (`BrowserCalls`). */
export class CallRunner {
  readonly facts: CallFacts;
  private media: LegMedia | undefined;
  private leg: BrowserLeg | undefined;
  private readonly timers = new TimerSet();
  private finishing = false;

  constructor(
    private call: BrowserCall,
    private readonly deps: CallRunnerDeps,
  ) {
    this.facts = initialFacts(call);
  }

  /** Both parties' audio mixed, while the call's media runs (`CallMixer`). */
  mixer(): CallMixer | undefined {
    return this.media?.mixer;
  }

  /** Media counts, live while the call runs and frozen once it ended. */
  counts(): MediaCounts | null {
    return this.media?.counts() ?? this.facts.media;
  }

  /**
   * Creates the offer and sends the INVITE. A call that cannot start fails at once and says why: it must not
   * stay busy (spec 3.2).
   */
  async start(): Promise<void> {
    try {
      if (await this.invite()) return;
      this.failAtOnce('agent_unreachable', { code: 'browser_session_unavailable', message: 'the browser agent stopped being registered' });
    } catch (error) {
      await this.dispose();
      this.failAtOnce('media_failed', { code: 'provider_error', message: `the simulator could not start the call's media: ${String(error)}` });
    }
  }

  /** Creates the offer and sends the INVITE; false when the agent is not registered. */
  private async invite(): Promise<boolean> {
    const media = new LegMedia(this.deps.createMedia(), this.facts, () => this.stamp(), this.deps.now);
    this.media = media;
    const offerSdp = await media.createOffer();
    const leg = this.deps.sip.invite(this.call.sessionId, {
      callId: this.call.id,
      callIdHeader: 'X-Browser-Call-Id',
      from: this.call.to,
      offerSdp,
      handlers: {
        onAnswered: (sdp) => void this.onBrowserAnswered(sdp),
        onRejected: (status, reason) => {
          this.facts.browserFinalStatus = status;
          // A no-op when we cancelled: the 487 only completes the facts of a call already ending.
          void this.finish('failed', 'agent_rejected', { code: 'agent_rejected', message: `the browser answered ${status} ${reason}`.trim() });
        },
        onBye: () => void this.finish('ended', 'agent_hangup'),
        onInfo: (contentType, body) => this.media?.info(contentType, body),
        onReoffer: (sdp) => (this.finishing || !this.media ? Promise.reject(new Error('the call has no media to offer to')) : this.media.reoffer(sdp)),
        onOffer: (sdp) => this.onBrowserOffered(sdp),
        onEdgeRequest: (method, statusCode) => void this.facts.edgeRequests.push({ method, statusCode, at: this.stamp() }),
        onTransportLost: () => this.onTransportLost(),
      },
    });
    if (!leg) {
      await this.closeMedia();
      return false;
    }
    this.leg = leg;
    this.facts.inviteSentAt = this.stamp();
    this.timers.after(this.deps.timings.agentAnswerTimeoutMs, () =>
      this.finish('failed', 'agent_no_answer', { code: 'agent_no_answer', message: 'the browser did not answer the INVITE' }),
    );
    return true;
  }

  /** Ends the call from the API side (hangup, session cleanup); both legs go down. */
  hangup(reason: string): void {
    void this.finish('ended', reason);
  }

  /**
   * The service gives up the INVITE the page has not answered yet (seen behind a SIP proxy): CANCEL, then the
   * call `failed` with `invite_withdrawn`. Resolves once the page answered the CANCEL (its 487, RFC 3261
   * section 9.2) and the terminal state is committed.
   * @returns false, doing nothing, when the INVITE is not ringing: not sent yet, answered, or the call is ending.
   */
  async withdrawInvite(): Promise<boolean> {
    if (this.finishing || !this.leg || this.facts.browserAnsweredAt !== null) return false;
    // Before an answer the leg's end() is a CANCEL (RFC 3261 section 9.1).
    await this.finish('failed', 'invite_withdrawn', { code: 'invite_withdrawn', message: 'the service withdrew the INVITE before the browser answered' });
    return true;
  }

  /** The far end asks the page to transfer the call to `target` (a REFER in the leg's dialog): the page's answer. */
  refer(target: string): Promise<number | undefined> {
    return this.finishing || !this.leg ? Promise.resolve(undefined) : this.leg.refer(target);
  }

  /**
   * The service holds the call (a re-INVITE `a=sendonly`, and no audio to the page) or takes it off hold; the
   * page's final status, or undefined when the leg is not up.
   */
  hold(held: boolean): Promise<number | undefined> {
    if (this.finishing || !this.leg) return Promise.resolve(undefined);
    this.media?.hold(held);
    return this.leg.hold(held);
  }

  /** The `media-blackhole` fault: the call's media path drops everything, both ways, for `ms`. */
  blackholeMedia(ms: number): void {
    this.media?.blackhole(ms);
  }

  /** The `media-impair` fault: one direction of the call's audio impaired, or no more (`undefined`). */
  impairMedia(direction: MediaDirection, impairment: Impairment | undefined, seed: number): void {
    this.media?.impair(direction, impairment, seed);
  }

  /** Cancels every timer and closes media without touching the record (simulator reset). */
  async dispose(): Promise<void> {
    this.finishing = true;
    this.timers.clear();
    void this.leg?.end();
    await this.closeMedia();
  }

  private async onBrowserAnswered(sdp: string): Promise<void> {
    this.timers.clear();
    try {
      await this.media?.acceptAnswer(sdp);
    } catch (error) {
      return this.finish('failed', 'media_failed', { code: 'media_failed', message: `the browser's answer was not usable: ${String(error)}` });
    }
    if (this.finishing) return;
    this.set('dialing_recipient');
    this.dialRecipient();
  }

  /** The page's 2xx to an offerless INVITE carried its offer: the answer goes in the ACK, and the recipient is dialled. */
  private async onBrowserOffered(sdp: string): Promise<string> {
    this.timers.clear();
    if (this.finishing) throw new Error('the call has no media to answer with');
    // The offer made for the INVITE went unsent: a fresh peer answers, as werift's rollback of it keeps no media.
    const unsent = this.media;
    const media = new LegMedia(this.deps.createMedia(), this.facts, () => this.stamp(), this.deps.now);
    this.media = media;
    await unsent?.close();
    try {
      const answer = await media.answerOffer(sdp);
      if (!this.finishing) {
        this.set('dialing_recipient');
        this.dialRecipient();
      }
      return answer;
    } catch (error) {
      void this.finish('failed', 'media_failed', { code: 'media_failed', message: `the browser's offer was not usable: ${String(error)}` });
      throw error;
    }
  }

  /**
   * The page's SIP WebSocket closed under the call. Before the answer the INVITE can no longer be answered:
   * the call fails. After it, media does not need the socket (the page reconnects, RFC 5626, and its audio
   * flows on), so the call lives while the browser's RTP keeps coming, and ends `connection_lost` once none
   * came for `mediaTimeoutMs`: no signalling and no media means nobody is there (a real service's RTP timeout).
   */
  private onTransportLost(): void {
    if (this.finishing) return;
    this.facts.transportLostAt = this.stamp();
    if (this.facts.browserAnsweredAt === null) {
      void this.finish('failed', 'connection_lost', { code: 'connection_lost', message: "the browser agent's SIP connection closed before it answered" });
      return;
    }
    endWhenQuiet(this.timers, this.deps.timings.mediaTimeoutMs, this.deps.now, () => this.media?.lastHeardAt() ?? 0, () => {
      void this.finish('ended', 'connection_lost');
    });
  }

  private dialRecipient(): void {
    const outcome = recipientFor(this.call.to, this.deps.timings);
    switch (outcome.kind) {
      case 'answer': {
        const answer = () => {
          this.set('connected', { answeredAt: this.stamp() });
          if (outcome.hangupAfterMs !== undefined) this.timers.after(outcome.hangupAfterMs, () => this.finish('ended', 'recipient_hangup'));
          if (this.call.maxDurationSeconds) this.timers.after(this.call.maxDurationSeconds * 1000, () => this.finish('ended', 'max_duration'));
        };
        // "At once" is in the same turn: a timer of 0 ms still let a read land in between while the DTLS
        // handshake held the loop, and the page then showed dialing_recipient for a whole poll.
        if (outcome.ringMs === 0) answer();
        else this.timers.after(outcome.ringMs, answer);
        return;
      }
      case 'busy':
        return void this.finish('ended', 'recipient_busy');
      case 'no_answer':
        return void this.timers.after(outcome.ringMs, () => this.finish('ended', 'no_answer'));
      case 'fail':
        return void this.finish('failed', 'recipient_failed', { code: outcome.code, message: outcome.message });
      case 'unknown':
        this.set('outcome_unknown');
        return void this.timers.after(outcome.resolveAfterMs, () => this.finish('ended', 'outcome_resolved'));
      case 'blocked':
        // Refused at admission (POST /browser-calls answers 403); never reaches a running call.
        return void this.finish('failed', 'compliance_blocked', { code: outcome.code, message: outcome.message });
    }
  }

  /** Fails a call that never reached the page: there is no leg to take down. */
  private failAtOnce(endReason: string, error: CallError): void {
    this.finishing = true;
    this.timers.clear();
    this.set('failed', { endReason, error, endedAt: this.stamp() });
  }

  /** Takes both legs down, then commits the terminal state: `busy` turns false only here. */
  private async finish(state: 'ended' | 'failed', endReason: string, error?: CallError): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    this.timers.clear();
    this.set('ending');
    if (this.leg) this.facts.browserLegEnd = await this.leg.end();
    await this.closeMedia();
    this.set(state, { endReason, error: error ?? null, endedAt: this.stamp() });
  }

  private async closeMedia(): Promise<void> {
    const media = this.media;
    this.media = undefined;
    await media?.close();
  }

  private set(state: BrowserCallState, patch: Partial<BrowserCall> = {}): void {
    if (state !== this.call.state) this.facts.history.push({ state, at: this.stamp() });
    this.call = this.deps.update(this.call.id, { ...patch, state });
  }

  private stamp(): string {
    return new Date(this.deps.now()).toISOString();
  }
}
