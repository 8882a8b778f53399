import type { VoiceBrowser } from './helper-types.js';

/**
 * Every method of the helper ({@link VoiceBrowser}), the one list of them, with where each runs when the tabs of
 * an origin share one phone: `leader`, in the tab holding the phone, whichever tab calls it (a follower sends the
 * call and waits for its answer); `tab`, in the tab that calls it (its own status, its own audio's autoplay, its
 * leaving, its watch of the queues). The compiler refuses a list that misses a method of the helper or names one
 * it lacks.
 */
export const HELPER_METHODS = {
  recover: 'leader',
  connect: 'leader',
  disconnect: 'leader',
  startCall: 'leader',
  answerNext: 'leader',
  setAvailability: 'leader',
  accept: 'leader',
  decline: 'leader',
  monitor: 'leader',
  startRecording: 'leader',
  stopRecording: 'leader',
  watchQueues: 'tab',
  hangup: 'leader',
  mute: 'leader',
  sendDtmf: 'leader',
  renew: 'leader',
  resumeAudio: 'tab',
  status: 'tab',
  preflight: 'leader',
  destroy: 'tab',
} as const satisfies Record<keyof VoiceBrowser, 'leader' | 'tab'>;

/** A method of the helper that runs in the tab holding the phone, whichever tab calls it. */
export type LeaderMethod = { [M in keyof VoiceBrowser]: (typeof HELPER_METHODS)[M] extends 'leader' ? M : never }[keyof VoiceBrowser];

/** The methods that run in the tab holding the phone, in {@link HELPER_METHODS}'s order. */
export const LEADER_METHODS = /* @__PURE__ */ (Object.keys(HELPER_METHODS) as (keyof VoiceBrowser)[]).filter((method): method is LeaderMethod => HELPER_METHODS[method] === 'leader');
