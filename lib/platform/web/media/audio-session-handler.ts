import { keepAgreedCodecs } from './agreed-codecs.js';
import type { Clock } from '../../../core/clock.js';

/**
 * Each call's media, for the link's offer/answer (RFC 3264): one peer connection with the session's ICE
 * servers, the microphone as its one track (none for a call that only listens), full descriptions (every
 * candidate in the SDP, no trickle, RFC 8839), and an ICE restart when the media path asks for one. SIP.js's own web
 * handler carries video, data channels, hold and a delegate the helper never uses; this one is what the helper
 * needs and nothing else. It imports nothing of SIP.js. Part of the SIP chunk: only the link creates it.
 */

/** What each call's handler is made with. */
export interface AudioHandlerOptions {
  iceServers: RTCIceServer[];
  /** `relay` when the session's network lets only TURN carry the media. */
  iceTransportPolicy?: RTCIceTransportPolicy | undefined;
  /** The most a description waits for ICE gathering; it then goes with the candidates found so far. */
  iceGatheringTimeoutMs: number;
  /**
   * With a TURN server among the ICE servers, the most it waits instead, for a relay candidate or the gathering's
   * end: behind a network that passes only TURN (over TLS, say) the relay is the one candidate that works, and its
   * allocation takes a round trip or two to the TURN server.
   */
  relayGatheringTimeoutMs?: number;
  /** Times the gathering: the link's. */
  clock: Clock;
}

/** What the link asks a description for: the microphone constraints at the answer, an ICE restart in a re-INVITE. */
export interface DescriptionOptions {
  constraints?: MediaStreamConstraints;
  offerOptions?: RTCOfferOptions;
}

export class AudioSessionHandler {
  // Fields declared, set in the constructor, as VoiceBrowserError's are (its class says why).
  declare readonly peerConnection: RTCPeerConnection;
  /** The far end's audio, for the page's audio element. */
  declare readonly remoteMediaStream: MediaStream;
  /**
   * Hears of the microphone lost mid-call (unplugged, taken by the system): `replaced` by the system's default,
   * or `unavailable` when none is left (the call goes on, sending nothing).
   */
  declare onMicrophone: ((outcome: 'replaced' | 'unavailable') => void) | undefined;
  /** A TURN server refused the session's credentials (webrtc-pc `icecandidateerror`, STUN error 401). */
  declare turnRefused: boolean | undefined;
  declare private microphone: MediaStream | undefined;
  declare private listening: boolean | undefined;
  declare private readonly options: AudioHandlerOptions;

  constructor(options: AudioHandlerOptions) {
    this.options = options;
    // The options are the configuration: its dictionary takes the ICE members and ignores the rest (WebIDL).
    this.peerConnection = new RTCPeerConnection(options);
    this.peerConnection.addEventListener('icecandidateerror', (event) => (this.turnRefused ||= event.errorCode === 401));
    const remote = (this.remoteMediaStream = new MediaStream());
    this.peerConnection.addEventListener('track', ({ track }) => {
      for (const old of remote.getTracks()) remote.removeTrack(old);
      remote.addTrack(track);
    });
  }

  /**
   * The answer to the service's offer, or in a call a new offer (an ICE restart when asked), with its candidates.
   * A new offer sent in a call lists only the codecs the call agreed ({@link keepAgreedCodecs}). The description set here
   * keeps them all: the far end answers from the offer it got (RFC 3264 section 6), which is then an answer to
   * this one too, and setting an offer other than the one created is refused (webrtc-pc, setLocalDescription).
   * setCodecPreferences() would trim both, but needs the browser's capabilities matched to the SDP, and not
   * every engine has it; this reads the same in each.
   */
  async getDescription(options?: DescriptionOptions): Promise<string> {
    const pc = this.peerConnection;
    // A call answered with `audio: false` (a monitor leg) only listens: no microphone, then or in a later offer.
    this.listening ||= options?.constraints?.audio === false;
    if (!this.microphone && !this.listening) {
      // A refusal or a missing device rejects here; the link then declines the INVITE (480).
      const microphone = await navigator.mediaDevices.getUserMedia({ audio: options?.constraints?.audio ?? true, video: false });
      // The call ended while the browser asked (a CANCEL, close()): the capture it hands over is let go at once,
      // so no microphone outlives its call.
      if (pc.signalingState === 'closed') {
        for (const track of microphone.getTracks()) track.stop();
        throw new DOMException('the call ended while the microphone was asked for', 'AbortError');
      }
      this.microphone = microphone;
      for (const track of microphone.getTracks()) {
        pc.addTrack(track, this.microphone);
        this.watch(track);
      }
    }
    const restart = !!options?.offerOptions?.iceRestart;
    const offering = pc.signalingState !== 'have-remote-offer';
    // The call's answer: ours to the INVITE's offer, or the far end's to an earlier re-offer.
    const agreed = [pc.currentLocalDescription, pc.currentRemoteDescription].find((description) => description?.type === 'answer')?.sdp;
    await pc.setLocalDescription(offering ? await pc.createOffer(options?.offerOptions) : await pc.createAnswer());
    // Our offer in the 2xx to an offerless INVITE (RFC 3264 section 5) gets its answer only in the ACK, after the
    // call is up and its audio element plays this stream: an element given a stream with no track never starts
    // (Chromium), so it gets the receiver's track now, the same one the `track` event brings with the answer.
    if (offering && !pc.currentRemoteDescription) for (const { receiver } of pc.getTransceivers()) this.remoteMediaStream.addTrack(receiver.track);
    await this.gathered(restart);
    const sdp = pc.localDescription?.sdp ?? '';
    return offering && agreed ? keepAgreedCodecs(sdp, agreed) : sdp;
  }

  /** The far end's offer, or its answer to ours (a re-INVITE). */
  async setDescription(sdp: string): Promise<void> {
    const pc = this.peerConnection;
    await pc.setRemoteDescription({ type: pc.signalingState === 'have-local-offer' ? 'answer' : 'offer', sdp });
  }

  /** An exchange that did not complete (our offer refused, theirs not answerable): back to the description both sides agreed on. */
  async rollbackDescription(): Promise<void> {
    const state = this.peerConnection.signalingState;
    if (state === 'have-local-offer' || state === 'have-remote-offer') await this.peerConnection.setLocalDescription({ type: 'rollback' });
  }

  /** A track that ends by itself (not by close()) is a microphone gone: the call gets the system's default. */
  private watch(track: MediaStreamTrack): void {
    track.addEventListener('ended', async () => {
      const sender = this.peerConnection.getSenders().find((candidate) => candidate.track === track);
      if (!sender || this.peerConnection.connectionState === 'closed') return;
      try {
        this.microphone = await navigator.mediaDevices.getUserMedia({ audio: true, video: false });
        // getUserMedia resolves only with the audio track asked for (were there none, using it throws, as a refusal does).
        const [replacement] = this.microphone.getAudioTracks() as [MediaStreamTrack];
        // The mute wish stays with the call: a muted microphone's replacement is muted too.
        replacement.enabled = track.enabled;
        await sender.replaceTrack(replacement);
        this.watch(replacement);
        this.onMicrophone?.('replaced');
      } catch {
        this.onMicrophone?.('unavailable');
      }
    }, { once: true });
  }

  /** Releases the microphone and the far end's audio, and closes the connection. */
  close(): void {
    for (const transceiver of this.peerConnection.getTransceivers()) {
      transceiver.sender.track?.stop();
      transceiver.receiver.track.stop();
    }
    this.peerConnection.close();
  }

  /**
   * Resolves once ICE gathering is complete, or after the timeout with the candidates found so far; with a TURN
   * server configured, once a relay candidate is found, within the longer relay timeout. After an ICE restart the
   * gathering of the new credentials is waited for, even if the old one looks complete. A timer that a hidden page
   * runs late holds the description until the gathering ends by itself, or the timer wakes.
   */
  private gathered(restart: boolean): Promise<void> {
    const pc = this.peerConnection;
    if (!restart && pc.iceGatheringState === 'complete') return Promise.resolve();
    const { clock, iceGatheringTimeoutMs, relayGatheringTimeoutMs, iceServers } = this.options;
    const turn = iceServers.some((server) => [server.urls].flat().some((url) => /^turns?:/i.test(url)));
    return new Promise<void>((resolve) => {
      // The timeout, the end of candidates (a null candidate), or with TURN a relay candidate (RFC 8445 section 5.1.1.2).
      const done = (event?: RTCPeerConnectionIceEvent) => {
        if (event?.candidate && !(turn && / typ relay\b/.test(event.candidate.candidate))) return;
        clock.clearTimeout(timer);
        pc.removeEventListener('icecandidate', done);
        resolve();
      };
      const timer = clock.setTimeout(done, turn ? (relayGatheringTimeoutMs ?? iceGatheringTimeoutMs) : iceGatheringTimeoutMs);
      pc.addEventListener('icecandidate', done);
    });
  }
}
