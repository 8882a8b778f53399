import { AUDIO_STATES, type Audio, type Connection } from './types.js';

/**
 * The moves between the states, as `[from, to]` pairs: of a browser call at the service, of the helper's
 * connection, and of the call's audio in the page. Enough to draw each as a diagram (the demo does); the runtime
 * commits no move of the connection or the audio that these lists lack.
 */

/** A move from one state to another: `[from, to]`. */
export type StateTransition<S extends string = string> = readonly [from: S, to: S];

// The browser call's moves are the service's, drawn once beside its states.
export { BROWSER_CALL_TRANSITIONS } from '../../contract/browser-call.js';

/** Every arrow of the {@link Connection} diagram as `[from, to]`: the only moves the helper's connection makes. */
export const CONNECTION_TRANSITIONS: readonly StateTransition<Connection>[] = [
  ['disconnected', 'connecting'],
  ['disconnected', 'recovery_required'],
  ['connecting', 'ready'],
  ['connecting', 'disconnected'],
  ['ready', 'reconnecting'],
  ['ready', 'expired'],
  ['ready', 'renewing'],
  ['reconnecting', 'ready'],
  ['reconnecting', 'offline'],
  ['reconnecting', 'expired'],
  ['offline', 'reconnecting'],
  ['offline', 'ready'],
  ['offline', 'expired'],
  ['offline', 'renewing'],
  ['expired', 'renewing'],
  ['renewing', 'ready'],
  ['renewing', 'offline'],
  ['renewing', 'expired'],
  ['recovery_required', 'disconnecting'],
  ['disconnected', 'disconnecting'],
  ['connecting', 'disconnecting'],
  ['ready', 'disconnecting'],
  ['reconnecting', 'disconnecting'],
  ['offline', 'disconnecting'],
  ['expired', 'disconnecting'],
  ['renewing', 'disconnecting'],
  ['disconnecting', 'disconnected'],
];

/** The audio of a call whose media this page answered and has not given up: it may still play. */
const live = (audio: Audio) => audio === 'connecting' || audio === 'playing' || audio === 'blocked' || audio === 'reconnecting';

/** Where a held call's audio goes: back to what the path shows once off hold, or to its end. */
const fromHeld = (to: Audio) => to === 'playing' || to === 'blocked' || to === 'ended';

/**
 * Whether the audio may move `from` one state `to` another (the media machine draws it): every state connects (a
 * call answered); a live one (`connecting`, `playing`, `blocked`, `reconnecting`) goes to any other but `none`;
 * `held` comes back to what the path shows, or ends; `failed` only ends. From `none` or `ended` (no media yet,
 * or none left) the audio only connects.
 */
export const audioMay = (from: Audio, to: Audio): boolean =>
  to !== from && (to === 'connecting' || (live(from) && to !== 'none') || (from === 'held' && fromHeld(to)) || (from === 'failed' && to === 'ended'));

/**
 * Every arrow of the audio's diagram (the media machine's) as `[from, to]`: the only moves `status().audio` makes
 * (see {@link audioMay}).
 */
export const AUDIO_TRANSITIONS: readonly StateTransition<Audio>[] = /* @__PURE__ */ AUDIO_STATES.flatMap((from) => AUDIO_STATES.filter((to) => audioMay(from, to)).map((to): StateTransition<Audio> => [from, to]));
