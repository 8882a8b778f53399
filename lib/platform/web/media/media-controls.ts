import type { Clock } from '../../../core/clock.js';
import { VoiceBrowserError } from '../../../core/errors.js';
import type { DtmfMethod } from '../../../runtime/sip-link.js';

/**
 * The page side of a call's media: remote audio playback (with the autoplay-policy resume), mute of the
 * outgoing track, and DTMF. Part of the SIP chunk: it only ever runs after `connect()`.
 */

export interface MediaControlsOptions {
  /** The established call's peer connection, if any. */
  peerConnection(): RTCPeerConnection | undefined;
  /** Sends a SIP INFO in the call's dialog; resolves on a 2xx answer. */
  sendInfo(contentType: string, content: string): Promise<void>;
  remoteAudio: HTMLAudioElement | undefined;
  speakerId: string | undefined;
  onAudio(state: 'playing' | 'blocked'): void;
  clock: Clock;
}

export interface MediaControls {
  /** Plays the call's remote stream in the page's audio element, on the chosen speaker. */
  play(stream: MediaStream | undefined): Promise<void>;
  resumeAudio(): Promise<void>;
  setMuted(muted: boolean): void;
  /** The mute wish now. */
  isMuted(): boolean;
  /** Applies the mute wish to the current call's outgoing track (called when a call's media starts). */
  applyMute(): void;
  sendDtmf(digit: string): Promise<DtmfMethod>;
}

/** RFC 4733 event length and the gap Chromium keeps after it (ms), as telephony gear expects. */
const TONE_MS = 120;
const TONE_GAP_MS = 70;
/** How long a digit waits for the call's media transport before it goes by SIP INFO instead. */
const MEDIA_WAIT_MS = 3000;
const DTMF_CHECK_MS = 50;

/** Both offer and answer carry telephone-event: RFC 4733 is agreed, even if the transport is not up yet. */
function agreedTelephoneEvent(pc: RTCPeerConnection): boolean {
  const event = /a=rtpmap:\d+ telephone-event\//i;
  return event.test(pc.currentRemoteDescription?.sdp ?? '') && event.test(pc.currentLocalDescription?.sdp ?? '');
}

/** RFC 4733 through the audio sender's RTCDTMFSender, once the tone has gone out. */
function sendTone(sender: RTCDTMFSender, digit: string): Promise<DtmfMethod> {
  return new Promise((resolve) => {
    const done = (event: RTCDTMFToneChangeEvent) => {
      // An empty tone marks the end of the buffer: this digit was played in full.
      if (event.tone !== '') return;
      sender.removeEventListener('tonechange', done);
      resolve('rfc4733');
    };
    sender.addEventListener('tonechange', done);
    sender.insertDTMF(digit, TONE_MS, TONE_GAP_MS);
  });
}

/**
 * A tone sent now reaches the far end: the media path is up (ICE and DTLS connected) and the DTMF sender can
 * send. Firefox's sender says it can before the path is up, when a tone would be lost unheard.
 */
const toneGoes = (pc: RTCPeerConnection, sender: RTCDTMFSender) => pc.connectionState === 'connected' && sender.canInsertDTMF;

/**
 * Resolves true once a tone goes, false after `MEDIA_WAIT_MS`. Chromium turns canInsertDTMF on only some time
 * after ICE and DTLS are up, and fires no event for it, so it is looked at every 50 ms.
 */
async function dtmfReady(pc: RTCPeerConnection, sender: RTCDTMFSender, clock: Clock): Promise<boolean> {
  for (let waited = 0; waited < MEDIA_WAIT_MS; waited += DTMF_CHECK_MS) {
    if (toneGoes(pc, sender)) return true;
    if (pc.connectionState === 'failed' || pc.connectionState === 'closed') return false;
    await new Promise<void>((resolve) => clock.setTimeout(resolve, DTMF_CHECK_MS));
  }
  return toneGoes(pc, sender);
}

/** One digit: by RFC 4733 once a tone goes, else by SIP INFO. */
async function sendOne(options: MediaControlsOptions, digit: string): Promise<DtmfMethod> {
  const pc = options.peerConnection();
  // The page's side of the call is over (its dialog ended) though a read may still show the call running.
  if (!pc || pc.connectionState === 'closed') {
    throw new VoiceBrowserError('no_active_call', "sendDtmf(): this page's side of the call has ended; the call shows as ended once the service says so");
  }
  const sender = pc.getSenders().find((s) => s.track?.kind === 'audio')?.dtmf;
  // The service may say connected before our media is up; when RFC 4733 was agreed, wait for it to be.
  if (sender && (toneGoes(pc, sender) || (agreedTelephoneEvent(pc) && (await dtmfReady(pc, sender, options.clock))))) return sendTone(sender, digit);
  try {
    await options.sendInfo('application/dtmf-relay', `Signal=${digit}\r\nDuration=${TONE_MS}`);
    return 'sip-info';
  } catch (cause) {
    // The INFO may or may not have arrived: never resent by us, the caller decides.
    throw new VoiceBrowserError('dtmf_outcome_unknown', `digit ${digit} may not have arrived; press it again only if the far end did not react`, { cause });
  }
}

/** Creates the media controls of one link; one closure for the mute wish, the DTMF queue and the audio element. */
export function createMediaControls(options: MediaControlsOptions): MediaControls {
  let muted = false;
  let dtmfQueue: Promise<unknown> = Promise.resolve();

  async function startPlayback(): Promise<void> {
    const audio = options.remoteAudio;
    if (!audio) return;
    try {
      await audio.play();
      options.onAudio('playing');
    } catch {
      // Autoplay policy: playback needs a user gesture; resumeAudio() from a click plays it.
      options.onAudio('blocked');
    }
  }

  function applyMute(): void {
    for (const sender of options.peerConnection()?.getSenders() ?? []) {
      // A disabled track sends silence: the far end keeps its RTP flowing, it just hears nothing.
      if (sender.track?.kind === 'audio') sender.track.enabled = !muted;
    }
  }

  return {
    async play(stream) {
      const audio = options.remoteAudio;
      if (!audio || !stream) return;
      audio.srcObject = stream;
      const sinkable = audio as HTMLAudioElement & { setSinkId?: (id: string) => Promise<void> };
      // setSinkId is missing in some browsers (Firefox before 116, Safari): the default output plays then.
      if (options.speakerId && sinkable.setSinkId) await sinkable.setSinkId(options.speakerId).catch(() => undefined);
      await startPlayback();
    },
    resumeAudio: startPlayback,
    setMuted(next) {
      muted = next;
      applyMute();
    },
    isMuted: () => muted,
    applyMute,
    sendDtmf(digit) {
      // One digit at a time, in order: insertDTMF replaces a buffer still playing.
      const sent = dtmfQueue.then(() => sendOne(options, digit));
      dtmfQueue = sent.catch(() => undefined);
      return sent;
    },
  };
}
