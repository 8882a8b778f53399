/**
 * A browser call as the service answers it (spec 2.6, 3.2): its record, its states and the moves between them.
 * The page library reads them and draws them, the simulator sets them. The one place they are written.
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

/**
 * A browser call as the service answers it (spec 2.6, 3.2): the REST record, every field. The simulator writes
 * it, its control API hands it to tests; the page library reads it through its own tolerant `BrowserCall`,
 * which takes fields the service may add.
 */
export interface BrowserCallRecord {
  /** The call's id, `bc_` and letters or digits. */
  id: string;
  /** The browser session the call was placed from. */
  sessionId: string;
  /** The `webrtc` agent the session belongs to. */
  agentId: string;
  /** The integrator's name for the user (the proxy derives it). */
  externalSubject: string;
  /** The caller ID the recipient sees. */
  from: string;
  /** The recipient, in E.164. */
  to: string;
  /** One of the browser call states (spec 3.2), as {@link BROWSER_CALL_STATES} lists them. */
  state: BrowserCallStateName;
  /** True until both legs are proven stopped: the agent cannot place another call meanwhile (spec 3.2). */
  busy: boolean;
  /** Why the call ended (`recipient_busy`, `no_answer`, ...), once it is terminal. */
  endReason: string | null;
  /** What went wrong, for a `failed` call (spec 2.2's `code` and its message). */
  error: { code: string; message: string } | null;
  /** The call's limit in seconds, when one was asked for. */
  maxDurationSeconds: number | null;
  /** Whether recording was asked for. */
  record: boolean;
  /** The string pairs given when the call was placed (spec 2.6 `customData`). */
  customData: Record<string, string>;
  /** ISO 8601 times: created, answered by the recipient, ended. */
  createdAt: string;
  answeredAt: string | null;
  endedAt: string | null;
  /** Increases by one on every change, so a reader can order two reads of the same call. */
  revision: number;
}
