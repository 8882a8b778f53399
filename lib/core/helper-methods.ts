/**
 * The helper's methods, listed once, by where each runs when the tabs of an origin share one
 * phone. The compiler refuses the two lists when together they miss a method of the helper or name one it lacks: the
 * check sits beside the helper's interface, so that these lists import nothing and any layer may read them.
 */

/** The methods that run in the tab holding the phone, whichever tab calls them: a follower sends the call and waits for its answer. */
export const LEADER_METHODS = ['recover', 'connect', 'disconnect', 'startCall', 'answerNext', 'setAvailability', 'accept', 'decline', 'monitor', 'startRecording', 'stopRecording', 'hangup', 'mute', 'sendDtmf', 'renew', 'preflight'] as const;

/** The methods that run in the tab that calls them: its own status, its own audio's autoplay, its leaving, its watch of the queues. */
export const TAB_METHODS = ['watchQueues', 'resumeAudio', 'status', 'destroy'] as const;

/** Every method of the helper, in the two lists' order. */
export const HELPER_METHODS: readonly HelperMethod[] = [...LEADER_METHODS, ...TAB_METHODS];

/** A method of the helper, as the lists name them. */
export type HelperMethod = (typeof LEADER_METHODS)[number] | (typeof TAB_METHODS)[number];

/** A method of the helper that runs in the tab holding the phone, whichever tab calls it. */
export type LeaderMethod = (typeof LEADER_METHODS)[number];

