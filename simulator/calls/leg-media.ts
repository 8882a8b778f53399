import type { CallFacts } from './call-facts.js';
import { opusParameters } from '../media/agreed-audio.js';
import type { Impairment, MediaDirection } from '../media/impairment.js';
import type { MediaCounts, MediaPeer } from '../media/media.js';
import { CallMixer } from '../media/mixer.js';
import { sipInfoDigit } from '../sip/sip-info-dtmf.js';

/**
 * The simulator's end of a browser leg's audio (a `createMediaPeer` peer), and what it records of that audio in the
 * call's facts: the page's answer, the DTMF it heard (RFC 4733, and SIP INFO in the leg's dialog), when the
 * audio connected, the page's re-INVITEs and ICE restarts, and the last counts once it closes. A browser call (`CallRunner`) and a
 * dequeued caller (`QueueBridge`) each ring the page with one; its mix of both parties is what a recording or
 * a monitor leg of the call hears.
 */
export class LegMedia {
  /** Both parties of the leg's call mixed (`CallMixer`), for a recording or a monitor leg to listen to. */
  readonly mixer: CallMixer;
  private closed = false;

  constructor(
    private readonly peer: MediaPeer,
    private readonly facts: CallFacts,
    private readonly stamp: () => string,
    now: () => number = Date.now,
  ) {
    this.mixer = new CallMixer(now);
    peer.tap((party, payload) => this.mixer.feed(party, payload));
    peer.onDtmf((digit) => facts.dtmf.push({ digit, method: 'rfc4733', at: stamp() }));
    void peer.connected.then(
      () => (facts.mediaConnectedAt = stamp()),
      () => undefined,
    );
  }

  /** The offer the INVITE carries. */
  createOffer(): Promise<string> {
    return this.peer.createOffer();
  }

  /** The page answered the INVITE (200 OK): recorded, and its answer applied; rejects when it is not usable. */
  acceptAnswer(sdp: string): Promise<void> {
    this.facts.browserAnsweredAt = this.stamp();
    this.facts.browserFinalStatus = 200;
    return this.peer.acceptAnswer(sdp);
  }

  /** The page's 2xx to an offerless INVITE carried its offer: recorded as the answer it is, and answered. */
  answerOffer(sdp: string): Promise<string> {
    this.facts.browserAnsweredAt = this.stamp();
    this.facts.browserFinalStatus = 200;
    return this.peer.answerOffer(sdp);
  }

  /** The service holds the call (nothing sent to the page) or resumes it. */
  hold(held: boolean): void {
    this.peer.hold(held);
  }

  /** A SIP INFO of the leg's dialog (`sipInfoDigit`): a digit is recorded beside the RFC 4733 ones. */
  info(contentType: string, body: string): void {
    const digit = sipInfoDigit(contentType, body);
    if (digit) this.facts.dtmf.push({ digit, method: 'sip-info', at: this.stamp() });
  }

  /** The page's re-INVITE: its new offer answered, its audio formats kept, an ICE restart counted. */
  async reoffer(sdp: string): Promise<string> {
    if (this.closed) throw new Error('the call has no media to offer to');
    this.facts.reinvites++;
    this.facts.lastReofferFormats = audioFormats(sdp);
    this.facts.lastReofferOpus = opusParameters(sdp);
    const answer = await this.peer.answerReoffer(sdp);
    if (answer.iceRestart) this.facts.iceRestarts++;
    return answer.sdp;
  }

  /** Sends one PCMU frame to the page: a monitor leg's audio (the media peer drops it unless the peer is a monitor's). */
  send(payload: Buffer): void {
    this.peer.send(payload);
  }

  /** The `media-blackhole` fault: the path drops everything, both ways, for `ms`. */
  blackhole(ms: number): void {
    this.peer.blackhole(ms);
  }

  /** The `media-impair` fault: `direction` of the leg's audio impaired as `impairment` says, or no more (`undefined`). */
  impair(direction: MediaDirection, impairment: Impairment | undefined, seed: number): void {
    this.peer.impair(direction, impairment, seed);
  }

  counts(): MediaCounts {
    return this.peer.counts();
  }

  /** When the page's audio last arrived, epoch ms (0: never), for the RTP timeout after its socket closed. */
  lastHeardAt(): number {
    return this.peer.counts().lastPacketFromBrowserAt ?? 0;
  }

  /** Closes the peer, and ends what listened to its mix; its last counts stay in the facts. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.mixer.close();
    this.facts.media = this.peer.counts();
    await this.peer.close();
  }
}

/**
 * The audio formats an SDP offers, in its order: each payload type of the `m=audio` line by its `rtpmap` name
 * (`PCMU/8000`, `telephone-event/8000`), or by its number where it has none (a static type, RFC 3551).
 */
function audioFormats(sdp: string): string[] {
  const types = /^m=audio \S+ \S+ (.*)$/m.exec(sdp)?.[1]?.trim().split(' ') ?? [];
  const names = new Map([...sdp.matchAll(/^a=rtpmap:(\d+) (\S+)/gm)].map(([, type, name]) => [type, name]));
  return types.map((type) => names.get(type) ?? type);
}
