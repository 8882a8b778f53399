/**
 * Recipient audio endpoint of the local voice-service simulator.
 *
 * The simulator INVITEs a browser (SIP.js in Chromium); this module produces the
 * SDP offer (Opus first, PCMU second, unless its profile is `pcmu-only`), accepts the browser's answer, plays a
 * short 440 Hz tone (`TonePlayer`) and then echoes the browser's audio back (`AudioSender`) in the codec the
 * answer agreed, counting everything it sees (`InboundRtp`).
 * It gathers on, pairs with and sends to this machine's own addresses only: see `selectMediaAddresses`.
 */
import { RTCPeerConnection, type RtpPacket } from 'werift';
import { InboundRtp } from './inbound-rtp.js';
import type { Impairment, MediaDirection } from './impairment.js';
import type { AudioParty, MediaCounts, MediaPeer, MediaPhase } from './media-peer.js';
import { agreedAudio } from './agreed-audio.js';
import { createOpusCodec, pcmuCodec, type AudioCodec } from './audio-codec.js';
import { disableStun, mediaPeerConfig, withPtime } from './loopback-webrtc.js';
import { blackholeUntil, impairMedia, type GateClock } from './media-path-gate.js';
import { selectMediaAddresses, usableCandidatesSdp, type MediaAddresses } from './media-addresses.js';
import type { MediaPeerOptions } from './media-peer-options.js';
import { AudioSender } from './outbound-rtp.js';
import { TonePlayer } from './tone.js';

export type { MediaPeerOptions } from './media-peer-options.js';
export type { AudioParty, MediaCounts, MediaPeer, MediaPhase } from './media-peer.js';

/** How long an answer with no candidate the peer may use waits for the browser's first check (`untilFirstCheck`). */
const FIRST_CHECK_WAIT_MS = 5000;

/** The session's ICE username fragment (RFC 8839 section 5.4), from its first media section that has one. */
function iceUfrag(sdp: string): string | undefined {
  return /^a=ice-ufrag:(\S+)/m.exec(sdp)?.[1];
}

/** The media peer on werift: the connection's setup and phases; the audio itself is the three files above. */
class WeriftMediaPeer implements MediaPeer {
  readonly connected: Promise<void>;
  private currentPhase: MediaPhase = 'idle';
  private readonly addresses: MediaAddresses;
  private readonly pc: RTCPeerConnection;
  private readonly sender: AudioSender;
  /** The codec the answer agreed (`agree`); PCMU until then. */
  private codec: AudioCodec = pcmuCodec;
  private readonly inbound: InboundRtp;
  private readonly tone: TonePlayer;
  private readonly toneMs: number;
  private readonly monitor: boolean;
  private readonly now: () => number;
  private readonly clock: GateClock;
  /** Each direction's impairment and seed, put again on the sockets each time the local description gathers. */
  private readonly impairments: Partial<Record<MediaDirection, { impairment: Impairment; seed: number }>> = {};
  private readonly taps: Array<(party: AudioParty, payload: Buffer) => void> = [];
  private closing: Promise<void> | undefined;
  private settled = false;
  /** The page's ICE username fragment in its last description: a new one in a re-offer is an ICE restart. */
  private remoteUfrag: string | undefined;
  /** A connectivity check from an admitted address has arrived; `wakeOnCheck` is waiting for one. */
  private checkSeen = false;
  private wakeOnCheck: (() => void) | undefined;
  private resolveConnected: () => void = () => undefined;
  private rejectConnected: (error: Error) => void = () => undefined;

  constructor(options: MediaPeerOptions) {
    this.toneMs = Math.max(0, options.toneMs ?? 1000);
    this.monitor = options.monitor ?? false;
    const now = options.now ?? Date.now;
    this.now = now;
    this.clock = { now, setTimeout: (run, ms) => setTimeout(run, ms) };
    this.addresses = selectMediaAddresses(options.addresses ?? 'loopback');
    const onCheck = (): void => {
      this.checkSeen = true;
      this.wakeOnCheck?.();
    };
    this.pc = new RTCPeerConnection(mediaPeerConfig(this.addresses, onCheck, options.codecs ?? 'opus'));
    const transceiver = this.pc.addTransceiver('audio', { direction: this.monitor ? 'sendonly' : 'sendrecv' });
    this.sender = new AudioSender(transceiver.sender, now);
    this.inbound = new InboundRtp(now);
    this.tone = new TonePlayer((frame) => this.sendFar(frame));
    this.connected = new Promise<void>((resolve, reject) => ([this.resolveConnected, this.rejectConnected] = [resolve, reject]));
    this.connected.catch(() => undefined); // callers that never await must not crash the process
    this.pc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => this.onRtp(rtp));
    });
    // connectionState (ICE + DTLS), not iceConnectionState: werift reports ICE 'completed'
    // when gathering ends, long before media can flow.
    this.pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected' && !this.settled && this.currentPhase === 'idle') {
        this.settled = true;
        this.resolveConnected();
        this.startMedia();
      } else if (state === 'failed' || state === 'closed') {
        this.tone.stop();
        this.fail(state);
      }
    });
  }

  get phase(): MediaPhase {
    return this.currentPhase;
  }

  async createOffer(): Promise<string> {
    const offer = await this.pc.createOffer();
    disableStun(this.pc);
    return withPtime(await this.describeLocally(offer));
  }

  async acceptAnswer(sdp: string): Promise<void> {
    this.remoteUfrag = iceUfrag(sdp);
    const usable = usableCandidatesSdp(sdp, this.addresses);
    if (!/^a=candidate:/m.test(usable)) await this.untilFirstCheck();
    await this.pc.setRemoteDescription({ type: 'answer', sdp: usable });
    this.agree(sdp);
  }

  /** The call's audio as `answer` agreed it (`agreedAudio`): the codec both ways, and what the page sends on. */
  private agree(answer: string): void {
    const { codec } = agreedAudio(answer);
    if (codec !== this.codec.name) {
      this.codec.close();
      this.codec = codec === 'opus' ? createOpusCodec() : pcmuCodec;
    }
    this.inbound.agree(answer, this.codec);
    this.sender.codec = this.codec;
  }

  /**
   * An answer with no candidate this peer may use (a browser naming its own by mDNS: RFC 8839 section 5.1) leaves
   * werift's check list empty until the browser's checks arrive and become peer-reflexive pairs (RFC 8445 section
   * 7.3.1.3); werift's ICE started on an empty list after the answer's end-of-candidates (Firefox writes it) fails
   * at once (ice.js connect, schedulingChecks), while a check that came first is kept and paired when it starts.
   * The browser checks as soon as it has answered: wait for its first check, or {@link FIRST_CHECK_WAIT_MS}, or close().
   */
  private async untilFirstCheck(): Promise<void> {
    if (this.checkSeen || this.currentPhase === 'closed') return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.wakeOnCheck = resolve;
      timer = setTimeout(resolve, FIRST_CHECK_WAIT_MS);
    });
    clearTimeout(timer);
    this.wakeOnCheck = undefined;
  }

  async answerReoffer(sdp: string): Promise<{ sdp: string; iceRestart: boolean }> {
    const ufrag = iceUfrag(sdp);
    const iceRestart = ufrag !== this.remoteUfrag;
    this.remoteUfrag = ufrag;
    const roles = this.pc.iceTransports.map((transport) => transport.connection.iceControlling);
    await this.pc.setRemoteDescription({ type: 'offer', sdp: usableCandidatesSdp(sdp, this.addresses) });
    const answer = await this.describeLocally(await this.pc.createAnswer());
    if (iceRestart) {
      // Keep the ICE role this side had (controlling: it offered the INVITE). Answering, werift would make itself
      // controlled (secureTransportManager.js setLocalRole, allowed once the restart cleared its selected pair),
      // but Firefox keeps the controlled role it took answering our INVITE: both controlled. werift's repair of
      // that conflict can leave it controlling with its check already succeeded and never nominated, so neither
      // side ever selects the pair (docs/browsers.md). Chromium takes the controlling role as the restart's
      // offerer; that conflict werift repairs from the controlling side (it answers 487, or turns controlled and
      // takes the browser's USE-CANDIDATE).
      this.pc.iceTransports.forEach((transport, i) => (transport.connection.iceControlling = roles[i] ?? transport.connection.iceControlling));
      // werift restarts its ICE agent on the new credentials but, its DTLS being up, never runs the new checks
      // itself (peerConnection.js connect()): start them, so the pair is found from this side too.
      for (const transport of this.pc.iceTransports) void transport.start().catch(() => undefined);
    }
    return { sdp: answer, iceRestart };
  }

  async answerOffer(sdp: string): Promise<string> {
    this.remoteUfrag = iceUfrag(sdp);
    await this.pc.setRemoteDescription({ type: 'offer', sdp: usableCandidatesSdp(sdp, this.addresses) });
    const answer = await this.pc.createAnswer();
    disableStun(this.pc);
    const local = await this.describeLocally(answer);
    this.agree(local);
    return local;
  }

  hold(held: boolean): void {
    this.sender.paused = held;
    if (!held) this.sender.newTalkspurt();
  }

  /** Sets a local description and waits for its candidates (non-trickle: the SDP carries them all). */
  private async describeLocally(description: Parameters<RTCPeerConnection['setLocalDescription']>[0]): Promise<string> {
    await this.pc.setLocalDescription(description);
    if (this.pc.iceGatheringState !== 'complete') {
      await this.pc.iceGatheringStateChange.watch((state) => state === 'complete');
    }
    const sdp = this.pc.localDescription?.sdp;
    if (!sdp) throw new Error('werift produced no local description');
    // Gathering made the sockets: an impairment set before them applies from here.
    for (const [direction, set] of Object.entries(this.impairments) as Array<[MediaDirection, { impairment: Impairment; seed: number }]>) {
      impairMedia(this.pc, direction, set.impairment, set.seed, this.clock);
    }
    return sdp;
  }

  counts(): MediaCounts {
    const inbound = this.inbound.counts;
    return {
      packetsFromBrowser: inbound.packetsFromBrowser,
      bytesFromBrowser: inbound.bytesFromBrowser,
      voicedPacketsFromBrowser: inbound.voicedPacketsFromBrowser,
      dtmfPacketsFromBrowser: inbound.dtmfPacketsFromBrowser,
      packetsToBrowser: this.sender.sent,
      codec: this.codec.name,
      lastPacketFromBrowserAt: inbound.lastPacketFromBrowserAt,
    };
  }

  onDtmf(listener: (digit: string) => void): void {
    this.inbound.onDtmf(listener);
  }

  blackhole(ms: number): void {
    blackholeUntil(this.pc, this.now() + ms, this.clock);
  }

  impair(direction: MediaDirection, impairment: Impairment | undefined, seed: number): void {
    if (impairment) this.impairments[direction] = { impairment, seed };
    else delete this.impairments[direction];
    impairMedia(this.pc, direction, impairment, seed, this.clock);
  }

  tap(listener: (party: AudioParty, payload: Buffer) => void): void {
    this.taps.push(listener);
  }

  send(payload: Buffer): void {
    if (this.currentPhase === 'monitor') this.sender.send(payload);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.currentPhase = 'closed';
      this.wakeOnCheck?.();
      this.tone.stop();
      this.fail('closed');
      await this.pc.close();
      this.codec.close();
    })();
    return this.closing;
  }

  /** DTLS is up: the tone plays, then the echo starts as a new talkspurt; a monitor's audio flows at once. */
  private startMedia(): void {
    this.sender.start();
    if (this.monitor) {
      this.currentPhase = 'monitor';
      return;
    }
    this.currentPhase = 'tone';
    this.tone.play(this.toneMs, () => {
      this.currentPhase = 'echo';
      this.sender.newTalkspurt();
    });
  }

  /** Counts what the browser sends and, once the tone is over, echoes its audio. */
  private onRtp(rtp: RtpPacket): void {
    if (this.currentPhase === 'closed') return;
    // A monitor leg takes nothing from the page (spec 2.6): what a page sends anyway is counted, never used.
    const frames = this.inbound.receive(rtp);
    if (!frames || this.monitor) return;
    for (const listener of this.taps) listener('browser', frames);
    if (this.currentPhase !== 'echo' || frames.length === 0) return;
    if (rtp.header.marker) this.sender.newTalkspurt(); // browser resumed after a pause: so do we
    // Copy: werift keeps sent packets in its retransmission cache.
    this.sendFar(Buffer.from(frames));
  }

  /** Sends the far party's frame (tone or echo) to the page, and shows it to the taps. */
  private sendFar(frame: Buffer): void {
    this.sender.send(frame);
    for (const listener of this.taps) listener('far', frame);
  }

  private fail(why: string): void {
    if (this.settled) return;
    this.settled = true;
    this.rejectConnected(new Error(`media connection ${why} before it connected`));
  }
}

/**
 * Create the simulator's media endpoint. Call createOffer(), send the SDP in the
 * INVITE, pass the 200 OK's SDP to acceptAnswer(), then await `connected`.
 */
export function createMediaPeer(options: MediaPeerOptions = {}): MediaPeer {
  return new WeriftMediaPeer(options);
}
