import { vi } from 'vitest';

/**
 * The browser's WebRTC as the link's call handler (audio-session-handler.ts) uses it, without a browser: a peer
 * connection that keeps JSEP's signaling states (webrtc-pc section 4.3.1: an offer set in the wrong state is
 * refused), answers an offer's direction as RFC 3264 section 6.1 says, gathers a host candidate at once and, when
 * its ICE servers name TURN, a relay candidate after {@link FakeWebRtc.relayAfterMs}; and a microphone whose
 * getUserMedia() the test may hold, so an answer can be caught half way. Installed on the globals by
 * {@link fakeWebRtc}.
 */

/** One captured track: stopped once the page lets it go. */
export class FakeTrack extends EventTarget {
  readonly kind = 'audio';
  readonly id = `microphone-${Math.random().toString(36).slice(2, 8)}`;
  enabled = true;
  readyState: 'live' | 'ended' = 'live';
  stop(): void {
    this.readyState = 'ended';
  }
}

class FakeStream {
  readonly #tracks: FakeTrack[];
  constructor(tracks: FakeTrack[] = []) {
    this.#tracks = [...tracks];
  }
  getTracks = () => [...this.#tracks];
  getAudioTracks = () => [...this.#tracks];
  addTrack = (track: FakeTrack) => void this.#tracks.push(track);
  removeTrack = (track: FakeTrack) => void this.#tracks.splice(this.#tracks.indexOf(track), 1);
}

type Direction = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
const directionOf = (sdp: string): Direction => (/^a=(sendrecv|sendonly|recvonly|inactive)\s*$/m.exec(sdp)?.[1] as Direction | undefined) ?? 'sendrecv';
/** RFC 3264 section 6.1: the answer's direction to an offer's, for a side that would send and receive. */
const ANSWER: Record<Direction, Direction> = { sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' };

export interface FakeWebRtc {
  /** Every peer connection the page made, in order. */
  readonly connections: FakePeerConnection[];
  /** Every track getUserMedia() handed out. */
  readonly tracks: FakeTrack[];
  /** When set, getUserMedia() waits until the test calls it (a permission prompt the agent has not answered). */
  holdMicrophone: boolean;
  /** Releases a held getUserMedia(). */
  releaseMicrophone(): void;
  /** How long a relay candidate takes to gather when a TURN server is configured (the TURN allocation). */
  relayAfterMs: number;
}

let world: FakeWebRtc;

export class FakePeerConnection extends EventTarget {
  signalingState: RTCSignalingState = 'stable';
  iceGatheringState: RTCIceGatheringState = 'new';
  connectionState: RTCPeerConnectionState = 'connected';
  localDescription: RTCSessionDescriptionInit | null = null;
  remoteDescription: RTCSessionDescriptionInit | null = null;
  currentLocalDescription: RTCSessionDescriptionInit | null = null;
  currentRemoteDescription: RTCSessionDescriptionInit | null = null;
  /** The far end sends audio when its direction lets it (false: a hold without music, say). */
  inbound = true;
  /** Every description set, local or remote, in order: `local offer`, `remote answer`, `local rollback`. */
  readonly log: string[] = [];
  readonly #senders: Array<{ track: FakeTrack | null; replaceTrack(track: FakeTrack): Promise<void> }> = [];
  #ufrag = 1;
  #received = 0;
  #candidates: string[] = [];

  constructor(readonly configuration: RTCConfiguration) {
    super();
    // webrtc-pc section 4.4.1.1: a URL of an ICE server that is not STUN or TURN throws at construction.
    const urls = (configuration.iceServers ?? []).flatMap((server) => [server.urls].flat());
    if (urls.some((url) => !/^(?:stuns?|turns?):/.test(url))) throw new DOMException('an ICE server URL is not STUN or TURN', 'SyntaxError');
    world.connections.push(this);
  }

  addTrack(track: FakeTrack): unknown {
    const sender = { track: track as FakeTrack | null, replaceTrack: (next: FakeTrack) => Promise.resolve(void (sender.track = next)) };
    this.#senders.push(sender);
    return sender;
  }
  getSenders = () => this.#senders;
  getTransceivers = () => this.#senders.map((sender) => ({ sender, receiver: { track: new FakeTrack() } }));

  #sdp(direction: Direction): string {
    return `v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111 0 8 126\r\nc=IN IP4 127.0.0.1\r\na=ice-ufrag:u${this.#ufrag}\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:126 telephone-event/8000\r\na=${direction}\r\n`;
  }

  createOffer(options?: RTCOfferOptions): Promise<RTCSessionDescriptionInit> {
    if (options?.iceRestart) this.#ufrag++;
    return Promise.resolve({ type: 'offer', sdp: this.#sdp(this.#senders.length ? 'sendrecv' : 'recvonly') });
  }

  createAnswer(): Promise<RTCSessionDescriptionInit> {
    if (this.signalingState !== 'have-remote-offer') return Promise.reject(new DOMException('no offer to answer', 'InvalidStateError'));
    // An offer with no codec the browser has (G.729 alone, say) is set, but cannot be answered.
    if (!/^a=rtpmap:\d+ (?:PCMU|PCMA|opus)\//im.test(this.remoteDescription?.sdp ?? '')) return Promise.reject(new DOMException('no codec in common', 'OperationError'));
    const answer = ANSWER[directionOf(this.remoteDescription?.sdp ?? '')];
    const own = this.#senders.length ? answer : answer === 'sendrecv' ? 'recvonly' : answer === 'sendonly' ? 'inactive' : answer;
    return Promise.resolve({ type: 'answer', sdp: this.#sdp(own) });
  }

  setLocalDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.log.push(`local ${description.type}`);
    if (description.type === 'rollback') {
      if (this.signalingState === 'stable') return Promise.reject(new DOMException('nothing to roll back', 'InvalidStateError'));
      this.signalingState = 'stable';
      this.localDescription = this.currentLocalDescription;
      this.remoteDescription = this.currentRemoteDescription;
      return Promise.resolve();
    }
    const expected = description.type === 'offer' ? 'stable' : 'have-remote-offer';
    if (this.signalingState !== expected) return Promise.reject(new DOMException(`a local ${description.type} in ${this.signalingState}`, 'InvalidStateError'));
    this.localDescription = description;
    this.signalingState = description.type === 'offer' ? 'have-local-offer' : 'stable';
    if (description.type === 'answer') {
      this.currentLocalDescription = description;
      this.currentRemoteDescription = this.remoteDescription;
    }
    this.#gather();
    return Promise.resolve();
  }

  setRemoteDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.log.push(`remote ${description.type}`);
    if (!description.sdp?.startsWith('v=0')) return Promise.reject(new DOMException('not an SDP', 'OperationError'));
    const expected = description.type === 'offer' ? 'stable' : 'have-local-offer';
    if (this.signalingState !== expected) return Promise.reject(new DOMException(`a remote ${description.type} in ${this.signalingState}`, 'InvalidStateError'));
    this.remoteDescription = description;
    this.signalingState = description.type === 'offer' ? 'have-remote-offer' : 'stable';
    if (description.type === 'answer') {
      this.currentRemoteDescription = description;
      this.currentLocalDescription = this.localDescription;
    }
    return Promise.resolve();
  }

  /** A host candidate at once, a relay one later when TURN is configured, then the end of candidates. */
  #gather(): void {
    this.iceGatheringState = 'gathering';
    this.#candidates = [];
    const turn = (this.configuration.iceServers ?? []).some((server) => [server.urls].flat().some((url) => url.startsWith('turn')));
    const found = (candidate: string | null) => {
      if (candidate) {
        this.#candidates.push(candidate);
        if (this.localDescription) this.localDescription = { ...this.localDescription, sdp: `${this.localDescription.sdp}a=${candidate}\r\n` };
      } else this.iceGatheringState = 'complete';
      this.dispatchEvent(Object.assign(new Event('icecandidate'), { candidate: candidate && { candidate } }));
    };
    // A browser gathers after setLocalDescription() resolved, on a task of its own.
    setTimeout(() => {
      found('candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host');
      if (!turn) return found(null);
      setTimeout(() => {
        found('candidate:2 1 udp 41885439 127.0.0.2 50001 typ relay raddr 0.0.0.0 rport 0');
        found(null);
      }, world.relayAfterMs);
    }, 0);
  }

  getStats(): Promise<RTCStatsReport> {
    const sends = ['sendrecv', 'sendonly'].includes(directionOf(this.currentRemoteDescription?.sdp ?? ''));
    if (this.connectionState === 'connected' && this.inbound && sends) this.#received += 25;
    return Promise.resolve(new Map([['IT01A', { id: 'IT01A', type: 'inbound-rtp', kind: 'audio', packetsReceived: this.#received }]]) as unknown as RTCStatsReport);
  }

  close(): void {
    this.connectionState = 'closed';
    this.signalingState = 'closed';
  }
}

/** Puts the fakes in the globals (vitest unstubs them after the test) and returns the world they report to. */
export function fakeWebRtc(): FakeWebRtc {
  let release: (() => void) | undefined;
  world = {
    connections: [],
    tracks: [],
    holdMicrophone: false,
    releaseMicrophone: () => release?.(),
    relayAfterMs: 1500,
  };
  const getUserMedia = async () => {
    if (world.holdMicrophone) await new Promise<void>((resolve) => (release = resolve));
    const track = new FakeTrack();
    world.tracks.push(track);
    return new FakeStream([track]);
  };
  vi.stubGlobal('RTCPeerConnection', FakePeerConnection);
  vi.stubGlobal('MediaStream', FakeStream);
  vi.stubGlobal('navigator', { ...navigator, onLine: true, mediaDevices: { getUserMedia, addEventListener: () => undefined, removeEventListener: () => undefined } });
  return world;
}
