import type { Offer } from '../../../core/types.js';

/**
 * What an offer's ring plays in the page: a tone of its own and, on a hidden page whose user allowed them, a
 * desktop notification. The only part of the ring that touches the browser (Web Audio, audio elements,
 * notifications); the offer ring's machine decides when.
 */

/**
 * A ring made in the page: 440 and 480 Hz, two seconds on and four off (the North American ring cadence),
 * scheduled on the audio clock for as long as the offer may ring, so that a hidden page's sleeping timers cannot
 * stretch it. With a chosen speaker it plays through an audio element set to it (`setSinkId`, as the call's
 * audio: not every browser lets an AudioContext choose), else on the default one. None where Web Audio is missing.
 */
export function playTone(sinkId: string | undefined, ringMs: number): { close(): void } | undefined {
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
export function notify(offer: Offer): Notification | undefined {
  if (typeof Notification !== 'function' || Notification.permission !== 'granted' || document.visibilityState !== 'hidden') return undefined;
  const notice = new Notification('Caller waiting', { body: offer.caller, tag: offer.callId, requireInteraction: true });
  notice.onclick = () => focus();
  return notice;
}
