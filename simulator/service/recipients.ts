/**
 * What the simulated recipient does for each test number (docs/simulator.md).
 *
 * @remarks
 * All in the fictional 555-01xx range, so no test can ever reach a real phone.
 */

export type RecipientOutcome =
  | { kind: 'answer'; ringMs: number; hangupAfterMs?: number }
  | { kind: 'busy' }
  | { kind: 'no_answer'; ringMs: number }
  | { kind: 'fail'; code: string; message: string }
  | { kind: 'unknown'; resolveAfterMs: number }
  | { kind: 'blocked'; code: string; message: string };

/**
 * How long the recipients take. Only `noAnswerMs` is required; the others default to the documented
 * figures ({@link DEFAULT_RECIPIENT_TIMINGS}), and tests shorten them.
 */
export interface RecipientTimings {
  /** How long +12025550103 rings before giving up. */
  noAnswerMs: number;
  /** How long any number outside the table rings before it answers. */
  ringMs?: number | undefined;
  /** How long +12025550101 rings before it answers. */
  slowAnswerMs?: number | undefined;
  /** How long +12025550106 talks before the recipient hangs up. */
  recipientHangupMs?: number | undefined;
  /** How long +12025550107 stays `outcome_unknown` before it resolves to `ended`. */
  outcomeUnknownMs?: number | undefined;
}

/** The figures docs/simulator.md documents. */
export const DEFAULT_RECIPIENT_TIMINGS: Required<RecipientTimings> = {
  noAnswerMs: 8000,
  ringMs: 1000,
  slowAnswerMs: 3000,
  recipientHangupMs: 5000,
  outcomeUnknownMs: 10_000,
};

/** The recipient's behaviour for `to`; every valid E.164 number not in the table rings 1 s and answers. */
export function recipientFor(to: string, timings: RecipientTimings): RecipientOutcome {
  const { ringMs, slowAnswerMs, recipientHangupMs, outcomeUnknownMs } = DEFAULT_RECIPIENT_TIMINGS;
  switch (to) {
    case '+12025550100':
      return { kind: 'answer', ringMs: 0 };
    case '+12025550101':
      return { kind: 'answer', ringMs: timings.slowAnswerMs ?? slowAnswerMs };
    case '+12025550102':
      return { kind: 'busy' };
    case '+12025550103':
      return { kind: 'no_answer', ringMs: timings.noAnswerMs };
    case '+12025550104':
      return { kind: 'fail', code: 'provider_error', message: 'the recipient leg failed at the carrier' };
    case '+12025550105':
      return { kind: 'blocked', code: 'compliance_dnc', message: 'the recipient is on a do-not-call list' };
    case '+12025550106':
      return { kind: 'answer', ringMs: 0, hangupAfterMs: timings.recipientHangupMs ?? recipientHangupMs };
    case '+12025550107':
      return { kind: 'unknown', resolveAfterMs: timings.outcomeUnknownMs ?? outcomeUnknownMs };
    default:
      return { kind: 'answer', ringMs: timings.ringMs ?? ringMs };
  }
}
