import type { Runtime } from '../../../runtime/runtime.js';
import type { VoiceBrowser, VoiceBrowserOptions } from '../../../core/helper-types.js';
import type { Offer, VoiceBrowserStatus } from '../../../core/types.js';

/**
 * Rings an offered caller (DESIGN.md, "Support desks"): it follows `status().offer`, and while one rings it plays
 * a tone of its own, raises a desktop notification on a hidden page when the page allows it, reads the offered
 * call for its queue, and declines the offer left unanswered for `offers.ringMs`, saying the agent away (an
 * absent agent is not offered caller after caller). Part of the SIP chunk: only a registered page is offered.
 */

/** The status watcher that rings; `calls` says the agent away after an offer rang out. */
export function createOfferRinger(rt: Runtime, options: VoiceBrowserOptions, calls: Pick<VoiceBrowser, 'setAvailability'>): (status: VoiceBrowserStatus) => void {
  const ringMs = options.offers?.ringMs ?? 15_000;
  let ringing: string | undefined;
  let stop = () => {};
  return ({ offer }) => {
    if (offer?.callId === ringing) return;
    stop();
    ringing = offer?.callId;
    if (!offer) return;
    const tone = playTone(options.audioDevices?.speakerId, ringMs);
    const notice = options.offers?.notify ? notify(offer) : undefined;
    const timer = rt.clock.setTimeout(() => {
      rt.dispatch({ type: 'offer_declined' });
      void calls.setAvailability('away').catch(() => undefined);
    }, ringMs);
    void rt.backend.getQueueCall?.(offer.callId, { signal: rt.signal() }).then(
      ({ call }) => rt.dispatch({ type: 'offer_read', callId: call.id, queueId: call.queueId }),
      () => undefined,
    );
    stop = () => {
      tone?.close();
      notice?.close();
      rt.clock.clearTimeout(timer);
    };
  };
}

/**
 * A ring made in the page: 440 and 480 Hz, two seconds on and four off (the North American ring cadence),
 * scheduled on the audio clock for as long as the offer may ring, so that a hidden page's sleeping timers cannot
 * stretch it. With a chosen speaker it plays through an audio element set to it (`setSinkId`, as the call's
 * audio: not every browser lets an AudioContext choose), else on the default one. None where Web Audio is missing.
 */
function playTone(sinkId: string | undefined, ringMs: number): { close(): void } | undefined {
  if (typeof AudioContext !== 'function') return undefined;
  const context = new AudioContext();
  // Made outside a click, a context may start suspended; the page's earlier clicks (Connect, Available) let it run.
  void context.resume().catch(() => undefined);
  const gain = context.createGain();
  gain.gain.value = 0;
  let element: HTMLAudioElement | undefined;
  if (sinkId && typeof Audio === 'function') {
    const out = context.createMediaStreamDestination();
    gain.connect(out);
    element = new Audio();
    element.srcObject = out.stream;
    // A speaker gone since it was chosen: the default one rings rather than none.
    void element.setSinkId(sinkId).catch(() => gain.connect(context.destination));
    void element.play().catch(() => undefined);
  } else gain.connect(context.destination);
  for (const hz of [440, 480]) {
    const oscillator = context.createOscillator();
    oscillator.frequency.value = hz;
    oscillator.connect(gain);
    oscillator.start();
  }
  for (let at = context.currentTime; at < context.currentTime + ringMs / 1000; at += 6) {
    gain.gain.setValueAtTime(0.1, at);
    gain.gain.setValueAtTime(0, at + 2);
  }
  return {
    close() {
      element?.pause();
      void context.close().catch(() => undefined);
    },
  };
}

/** A desktop notification for a hidden page whose user allowed them; a click brings the page to the front. */
function notify(offer: Offer): Notification | undefined {
  if (typeof Notification !== 'function' || Notification.permission !== 'granted' || document.visibilityState !== 'hidden') return undefined;
  const notice = new Notification('Caller waiting', { body: offer.caller, tag: offer.callId, requireInteraction: true });
  notice.onclick = () => focus();
  return notice;
}
