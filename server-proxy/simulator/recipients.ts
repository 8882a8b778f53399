/**
 * What the simulated recipient does for each test number (DESIGN.md, "Recipient test numbers").
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

export interface RecipientTimings {
  /** How long +12025550103 rings before giving up. */
  noAnswerMs: number;
}

/** The recipient's behaviour for `to`; every valid E.164 number not in the table rings 1 s and answers. */
export function recipientFor(to: string, timings: RecipientTimings): RecipientOutcome {
  switch (to) {
    case '+12025550100':
      return { kind: 'answer', ringMs: 0 };
    case '+12025550101':
      return { kind: 'answer', ringMs: 3000 };
    case '+12025550102':
      return { kind: 'busy' };
    case '+12025550103':
      return { kind: 'no_answer', ringMs: timings.noAnswerMs };
    case '+12025550104':
      return { kind: 'fail', code: 'provider_error', message: 'the recipient leg failed at the carrier' };
    case '+12025550105':
      return { kind: 'blocked', code: 'compliance_dnc', message: 'the recipient is on a do-not-call list' };
    case '+12025550106':
      return { kind: 'answer', ringMs: 0, hangupAfterMs: 5000 };
    case '+12025550107':
      return { kind: 'unknown', resolveAfterMs: 10_000 };
    default:
      return { kind: 'answer', ringMs: 1000 };
  }
}
