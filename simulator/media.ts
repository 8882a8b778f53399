/**
 * Recipient audio endpoint of the local voice-service simulator.
 *
 * The simulator INVITEs a browser (SIP.js in Chromium); this module produces the
 * SDP offer, accepts the browser's answer, plays a short 440 Hz PCMU tone and then
 * echoes the browser's audio back, counting everything it sees. It never leaves
 * 127.0.0.1: see `loopback-webrtc.ts`.
 */
import { randomInt } from 'node:crypto';
import { RTCPeerConnection, RtpHeader, RtpPacket } from 'werift';
import { encodeMulaw, mulawRms } from './g711.js';
import { disableStun, loopbackOnlySdp, loopbackPeerConfig, PCMU_CLOCK_RATE, PCMU_PAYLOAD_TYPE, TELEPHONE_EVENT_PAYLOAD_TYPE } from './loopback-webrtc.js';
import { dtmfDigit, parseTelephoneEvent } from './telephone-event.js';

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

/** RMS (linear int16) above which a packet counts as voiced; mu-law silence decodes to 0, its smallest step is 8. */
export const VOICE_RMS_THRESHOLD = 100;

const SAMPLE_RATE = PCMU_CLOCK_RATE;
const FRAME_MS = 20; // RFC 3551 section 4.5 default packetization (ptime 20)
const SAMPLES_PER_FRAME = (SAMPLE_RATE * FRAME_MS) / 1000; // 160
const TONE_HZ = 440;
const TONE_AMPLITUDE = 8000;

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
