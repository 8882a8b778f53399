/**
 * Recipient audio endpoint of the local voice-service simulator.
 *
 * The simulator INVITEs a browser (SIP.js in Chromium); this module produces the
 * SDP offer, accepts the browser's answer, plays a short 440 Hz PCMU tone and then
 * echoes the browser's audio back, counting everything it sees.
 *
 * Network hygiene (traffic beyond loopback is forbidden on the dev machines):
 * werift is configured to bind, gather and send on 127.0.0.1 only, with its
 * built-in Google STUN fallback disabled; see {@link loopbackPeerConfig} and
 * {@link disableStun} (werift source: lib/ice/src/ice.js, lib/webrtc/src/secureTransportManager.js).
 * Chromium only offers a 127.0.0.1 candidate when started with
 * `--allow-loopback-in-peer-connection` (and `--disable-features=WebRtcHideLocalIpsWithMdns`).
 */
import { randomInt } from 'node:crypto';
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RtpHeader,
  RtpPacket,
  type RTCPeerConnectionConfig,
} from 'werift';
import { encodeMulaw, mulawRms } from './g711.js';

/** Packet/byte counters of one call, as seen by the simulator. */
export interface MediaCounts {
  /** RTP audio packets received (PCMU), excluding telephone-event. */
  packetsFromBrowser: number;
  /** Payload bytes of those packets (PCMU: one byte per sample). */
  bytesFromBrowser: number;
  /** Packets whose decoded mu-law RMS exceeds {@link VOICE_RMS_THRESHOLD}; lets tests see mute. */
  voicedPacketsFromBrowser: number;
  /** RFC 4733 telephone-event (DTMF) packets received; not included above. */
  dtmfPacketsFromBrowser: number;
  /** RTP packets handed to werift for sending (tone + echo). */
  packetsToBrowser: number;
  /** Epoch ms (per `options.now`) of the last PCMU packet received, or null. */
  lastPacketFromBrowserAt: number | null;
}

/** Options for {@link createMediaPeer}. */
export interface MediaPeerOptions {
  /** Play a 440 Hz tone (PCMU, amplitude ~8000/32768) this long after connect, then echo; default 1000. */
  toneMs?: number;
  /** Epoch-ms clock for `lastPacketFromBrowserAt` and for sizing RTP timestamp gaps; default `Date.now`. */
  now?: () => number;
}

/** What the media peer is doing: waiting for DTLS, playing the tone, echoing, or done. */
export type MediaPhase = 'idle' | 'tone' | 'echo' | 'closed';

/** One simulated recipient audio endpoint backed by a werift RTCPeerConnection. */
export interface MediaPeer {
  /** Full non-trickle SDP offer: PCMU/8000 pt 0 + telephone-event/8000 pt 101 (0-16), sendrecv, candidates included. */
  createOffer(): Promise<string>;
  /** Apply the browser's SDP answer (non-loopback ICE candidates are dropped first). */
  acceptAnswer(sdp: string): Promise<void>;
  /** Resolves when `pc.connectionState` is 'connected'; rejects on 'failed'/'closed' (or close()) before that. */
  readonly connected: Promise<void>;
  /** Current phase; 'closed' after close(). */
  readonly phase: MediaPhase;
  /** Snapshot of the counters. */
  counts(): MediaCounts;
  /**
   * Calls `listener` once per RFC 4733 DTMF event received (`'0'`-`'9'`, `'*'`, `'#'`, `'A'`-`'D'`), when its
   * first end packet arrives; the repeated end packets and retransmissions are not reported again.
   */
  onDtmf(listener: (digit: string) => void): void;
  /** Idempotent: stops the tone timer and closes the peer connection (sockets, timers). */
  close(): Promise<void>;
}

/** One RFC 4733 telephone-event payload (section 2.3). */
export interface TelephoneEvent {
  event: number;
  /** E bit: this packet ends the event. */
  end: boolean;
  /** Power level in -dBm0, 0-63. */
  volume: number;
  /** In RTP timestamp units since the event's start. */
  duration: number;
}

/**
 * Parses an RFC 4733 section 2.3 payload: event (8 bits), E, R, volume (6 bits), duration (16 bits).
 * Undefined when shorter than 4 bytes; of a packet carrying several event blocks, only the first is read.
 */
export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | undefined {
  if (payload.length < 4) return undefined;
  const [event = 0, flags = 0, high = 0, low = 0] = payload;
  return { event, end: (flags & 0x80) !== 0, volume: flags & 0x3f, duration: (high << 8) | low };
}

/** RFC 4733 section 3 (IANA telephone-event registry): events 0-15 are DTMF digits; others (flash, tones) are not. */
export function dtmfDigit(event: number): string | undefined {
  return event >= 0 && event <= 15 ? '0123456789*#ABCD'[event] : undefined;
}

/** The only address this module binds to, gathers on, or sends to. */
export const LOOPBACK = '127.0.0.1';
/** Static payload type of PCMU (RFC 3551 table 4). */
export const PCMU_PAYLOAD_TYPE = 0;
/** Dynamic payload type we offer for telephone-event (RFC 4733 section 7). */
export const TELEPHONE_EVENT_PAYLOAD_TYPE = 101;
/** RMS (linear int16) above which a packet counts as voiced; mu-law silence decodes to 0, its smallest step is 8. */
export const VOICE_RMS_THRESHOLD = 100;

const SAMPLE_RATE = 8000; // PCMU clock rate (RFC 3551 section 4.5.14)
const FRAME_MS = 20; // RFC 3551 section 4.5 default packetization (ptime 20)
const SAMPLES_PER_FRAME = (SAMPLE_RATE * FRAME_MS) / 1000; // 160
const TONE_HZ = 440;
const TONE_AMPLITUDE = 8000;

/**
 * werift RTCPeerConnection configuration that never touches anything but 127.0.0.1.
 * Shared with tests so both ends of a loopback call are equally constrained.
 */
export function loopbackPeerConfig(): RTCPeerConnectionConfig {
  return {
    codecs: {
      // PCMU first: werift's sender.sendRtp rewrites every payload type to the first negotiated codec.
      audio: [
        new RTCRtpCodecParameters({ mimeType: 'audio/PCMU', clockRate: SAMPLE_RATE, channels: 1, payloadType: PCMU_PAYLOAD_TYPE }),
        new RTCRtpCodecParameters({
          mimeType: 'audio/telephone-event',
          clockRate: SAMPLE_RATE,
          payloadType: TELEPHONE_EVENT_PAYLOAD_TYPE,
          parameters: '0-16', // RFC 4733 section 2.5.1: DTMF events 0-9, *, #, A-D, flash
        }),
      ],
      video: [],
    },
    // An empty list only avoids the configured server; ice.js still defaults to
    // stun.l.google.com:19302, which disableStun() clears before gathering.
    iceServers: [],
    // getHostAddresses() lists non-internal interfaces (the LAN address), so turn that
    // off entirely and add loopback explicitly; werift's iceInterfaceAddresses filter alone
    // falls back to *all* addresses when nothing matches.
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: [LOOPBACK],
    // Bind the UDP socket to 127.0.0.1 instead of 0.0.0.0, so the kernel cannot route off-host.
    iceInterfaceAddresses: { udp4: LOOPBACK },
    iceUseTcp: false,
    // Never form a check pair towards a non-loopback remote candidate.
    iceFilterCandidatePair: (pair) => pair.remoteCandidate.host === LOOPBACK,
    // Incoming checks from elsewhere would create peer-reflexive pairs, which bypass the
    // pair filter above (ice.js checkIncoming); refuse to answer them instead.
    iceFilterStunResponse: (_message, addr) => addr[0] === LOOPBACK,
  };
}

/**
 * Clear werift's fallback STUN server on every ICE transport. Must run after the
 * transports exist (after addTransceiver/createOffer, or setRemoteDescription for an
 * answerer) and before setLocalDescription, which triggers gathering.
 */
export function disableStun(pc: RTCPeerConnection): void {
  for (const transport of pc.iceTransports) transport.connection.stunServer = undefined;
}

/**
 * Drop every ICE candidate that is not UDP on 127.0.0.1 from an SDP blob. The browser
 * may list its LAN address or an mDNS `.local` name; werift would resolve the latter with
 * multicast DNS (ice.js addRemoteCandidate), so such lines must never reach it.
 */
export function loopbackOnlySdp(sdp: string): string {
  const lines = sdp.split(/\r?\n/);
  const kept = lines.filter((line) => {
    if (!line.startsWith('a=candidate:')) return true;
    // RFC 8839 section 5.1: foundation component transport priority address port typ ...
    const [, , transport, , address] = line.slice('a=candidate:'.length).split(' ');
    return transport?.toLowerCase() === 'udp' && address === LOOPBACK;
  });
  return kept.join('\r\n');
}

/** One 20 ms frame of the 440 Hz tone, phase-continuous via the running sample index. */
function toneFrame(firstSample: number): Buffer {
  const samples = new Array<number>(SAMPLES_PER_FRAME);
  for (let i = 0; i < SAMPLES_PER_FRAME; i++) {
    samples[i] = TONE_AMPLITUDE * Math.sin((2 * Math.PI * TONE_HZ * (firstSample + i)) / SAMPLE_RATE);
  }
  return encodeMulaw(samples);
}

/**
 * Create the simulator's media endpoint. Call createOffer(), send the SDP in the
 * INVITE, pass the 200 OK's SDP to acceptAnswer(), then await `connected`.
 */
export function createMediaPeer(options: MediaPeerOptions = {}): MediaPeer {
  const toneMs = Math.max(0, options.toneMs ?? 1000);
  const now = options.now ?? Date.now;
  const pc = new RTCPeerConnection(loopbackPeerConfig());
  const transceiver = pc.addTransceiver('audio', { direction: 'sendrecv' });

  const stats: MediaCounts = {
    packetsFromBrowser: 0,
    bytesFromBrowser: 0,
    voicedPacketsFromBrowser: 0,
    dtmfPacketsFromBrowser: 0,
    packetsToBrowser: 0,
    lastPacketFromBrowserAt: null,
  };
  let phase: MediaPhase = 'idle';
  let timer: NodeJS.Timeout | undefined;
  let closing: Promise<void> | undefined;
  // RFC 3550 section 5.1: initial sequence number and timestamp should be random.
  // werift's sender adds zero offsets to what we give it, so randomise here.
  let seq = randomInt(0x10000);
  let ts = randomInt(0x100000000);
  let startedAt = 0; // now() when media started, to map wall time to RTP time
  let startTs = 0;
  let toneSample = 0;
  let newTalkspurt = true;
  const dtmfListeners: Array<(digit: string) => void> = [];
  // RFC 4733 section 2.5.1.4: an event's end packet is sent three times, all with the event's timestamp;
  // remembering the last few reported timestamps also absorbs a late retransmission.
  const reportedEvents: number[] = [];

  const send = (payload: Buffer): void => {
    let marker = false;
    if (newTalkspurt) {
      // RFC 3551 section 4.1: mark the first packet of a talkspurt, and let the
      // timestamp jump by the silent gap (RFC 3550 section 5.1: it tracks the sampling clock).
      marker = true;
      newTalkspurt = false;
      const wallTs = (startTs + Math.round(((now() - startedAt) * SAMPLE_RATE) / 1000)) >>> 0;
      if (((wallTs - ts) >>> 0) < 0x80000000) ts = wallTs;
    }
    const header = new RtpHeader({ payloadType: PCMU_PAYLOAD_TYPE, sequenceNumber: seq, timestamp: ts, marker });
    seq = (seq + 1) & 0xffff;
    ts = (ts + payload.length) >>> 0; // PCMU: one byte per sample
    stats.packetsToBrowser++;
    // SSRC is filled in by werift (sender.ssrc), as is the negotiated payload type.
    transceiver.sender.sendRtp(new RtpPacket(header, payload)).catch(() => undefined);
  };

  const stopTimer = (): void => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  };

  const startMedia = (): void => {
    startedAt = now();
    startTs = ts;
    let framesLeft = Math.ceil(toneMs / FRAME_MS);
    if (framesLeft === 0) {
      phase = 'echo';
      return;
    }
    phase = 'tone';
    timer = setInterval(() => {
      send(toneFrame(toneSample));
      toneSample += SAMPLES_PER_FRAME;
      if (--framesLeft <= 0) {
        stopTimer();
        phase = 'echo';
        newTalkspurt = true; // the echo is a new talkspurt
      }
    }, FRAME_MS);
  };

  const onTelephoneEvent = (rtp: RtpPacket): void => {
    const event = parseTelephoneEvent(rtp.payload);
    const digit = event?.end ? dtmfDigit(event.event) : undefined;
    // RFC 4733: every packet of one event carries the event's start as its RTP timestamp, which tells events apart.
    if (!digit || reportedEvents.includes(rtp.header.timestamp)) return;
    reportedEvents.push(rtp.header.timestamp);
    if (reportedEvents.length > 8) reportedEvents.shift();
    for (const listener of dtmfListeners) listener(digit);
  };

  const onRtp = (rtp: RtpPacket): void => {
    if (phase === 'closed') return;
    const pt = rtp.header.payloadType;
    if (pt === TELEPHONE_EVENT_PAYLOAD_TYPE) {
      stats.dtmfPacketsFromBrowser++; // RFC 4733 events are signalling, not audio: never echoed
      onTelephoneEvent(rtp);
      return;
    }
    if (pt !== PCMU_PAYLOAD_TYPE) return;
    stats.packetsFromBrowser++;
    stats.bytesFromBrowser += rtp.payload.length;
    if (mulawRms(rtp.payload) > VOICE_RMS_THRESHOLD) stats.voicedPacketsFromBrowser++;
    stats.lastPacketFromBrowserAt = now();
    if (phase !== 'echo') return;
    if (rtp.header.marker) newTalkspurt = true; // browser resumed after a pause: so do we
    // Copy: werift keeps sent packets in its retransmission cache.
    send(Buffer.from(rtp.payload));
  };
  pc.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe(onRtp);
  });

  let resolveConnected: () => void = () => undefined;
  let rejectConnected: (error: Error) => void = () => undefined;
  let settled = false;
  const connected = new Promise<void>((resolve, reject) => ([resolveConnected, rejectConnected] = [resolve, reject]));
  connected.catch(() => undefined); // callers that never await must not crash the process
  const fail = (why: string): void => {
    if (settled) return;
    settled = true;
    rejectConnected(new Error(`media connection ${why} before it connected`));
  };

  // connectionState (ICE + DTLS), not iceConnectionState: werift reports ICE 'completed'
  // when gathering ends, long before media can flow.
  pc.connectionStateChange.subscribe((state) => {
    if (state === 'connected' && !settled && phase === 'idle') {
      settled = true;
      resolveConnected();
      startMedia();
    } else if (state === 'failed' || state === 'closed') {
      stopTimer();
      fail(state);
    }
  });

  return {
    async createOffer() {
      const offer = await pc.createOffer();
      disableStun(pc);
      // Non-trickle: werift's setLocalDescription awaits candidate gathering.
      await pc.setLocalDescription(offer);
      if (pc.iceGatheringState !== 'complete') {
        await pc.iceGatheringStateChange.watch((state) => state === 'complete');
      }
      const sdp = pc.localDescription?.sdp;
      if (!sdp) throw new Error('werift produced no local description');
      return sdp;
    },
    async acceptAnswer(sdp) {
      await pc.setRemoteDescription({ type: 'answer', sdp: loopbackOnlySdp(sdp) });
    },
    connected,
    get phase() {
      return phase;
    },
    counts() {
      return { ...stats };
    },
    onDtmf(listener) {
      dtmfListeners.push(listener);
    },
    close() {
      closing ??= (async () => {
        phase = 'closed';
        stopTimer();
        fail('closed');
        await pc.close();
      })();
      return closing;
    },
  };
}
