/**
 * A browser call's states as the service answers them (spec 3.2), and the moves between them: the page library
 * reads them and draws them, the simulator sets them. The one place they are written.
 *
 * ```
 *                  page answers                     recipient answers
 *  waiting_agent ──────────────▶ dialing_recipient ─────────────────▶ connected
 *    │    │                        │          │ its outcome not known    │
 *    │    │                        │          ▼                          │
 *    │    │                        │    outcome_unknown                  │
 *    │    │ hangup, refusal, BYE   ▼          │                          │
 *    │    └──────────────────────▶ ending ◀───┴──────────────────────────┘
 *    │ fails before                │    │
 *    │ the page rang               │    │ both legs down
 *    └────────────────▶ failed ◀───┘    └──────────▶ ended
 * ```
 * spec 3.2: `busy` turns false only in the terminal states, once both legs are proven stopped.
 */

/** spec 3.2: every browser call state, the usual path first, then the two ways off it. */
export const BROWSER_CALL_STATES = ['waiting_agent', 'dialing_recipient', 'connected', 'ending', 'ended', 'failed', 'outcome_unknown'] as const;

/** A browser call state the service writes (a page tolerates more: the service may add one). */
export type BrowserCallStateName = (typeof BROWSER_CALL_STATES)[number];

/** The terminal ones: a call in them has both legs down (the service's `busy: false` says so too, spec 3.2). */
export const TERMINAL_CALL_STATES: ReadonlySet<string> = new Set<BrowserCallStateName>(['ended', 'failed']);

/**
 * Every arrow of the browser call's diagram as `[from, to]`: the moves a call makes at the service (spec 3.2
 * names the states; the moves are this service's). Every end passes `ending` while the legs go down, except a
 * call that fails before it reached the page. A page sees the call through reads about once a second (spec
 * 4.9), so two reads can skip a state in between (`waiting_agent` straight to `connected` when the recipient
 * answers at once).
 */
export const BROWSER_CALL_TRANSITIONS: readonly (readonly [from: (typeof BROWSER_CALL_STATES)[number], to: (typeof BROWSER_CALL_STATES)[number]])[] = [
  ['waiting_agent', 'dialing_recipient'],
  ['waiting_agent', 'ending'],
  ['waiting_agent', 'failed'],
  ['dialing_recipient', 'connected'],
  ['dialing_recipient', 'ending'],
  ['dialing_recipient', 'outcome_unknown'],
  ['connected', 'ending'],
  ['outcome_unknown', 'ending'],
  ['ending', 'ended'],
  ['ending', 'failed'],
];
