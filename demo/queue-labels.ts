import { canAnswerNext as helperAnswersNext, type VoiceBrowserStatus } from 'voice-browser';
import type { QueueRow } from './models/queue-rows.js';

/**
 * The queue panel's words and what it enables, as pure functions (tested directly in
 * the demo's unit tests); the call card's words for an inbound caller are with the call's own labels.
 */

/** "Answer next" takes the head caller of its queue: when the helper takes answerNext() now, and someone waits there. */
export function canAnswerNext(status: VoiceBrowserStatus, waiting: number): boolean {
  return helperAnswersNext(status) && waiting > 0;
}

/** How many wait in one queue: "nobody waiting", "1 caller waiting", "3 callers waiting". */
export function waitingLabel(count: number): string {
  if (count === 0) return 'nobody waiting';
  return count === 1 ? '1 caller waiting' : `${count} callers waiting`;
}

/**
 * The panel's one polite live line: each queue and how many wait there, "Support: 2 callers waiting; Sales:
 * nobody waiting". It changes only when a caller arrives or leaves (the wait times tick elsewhere), so screen
 * readers hear each arrival and departure once, not a clock.
 */
export function queueSummaryLabel(rows: readonly QueueRow[]): string {
  if (rows.length === 0) return 'No queues to answer';
  return rows.map((row) => `${row.name}: ${waitingLabel(row.callers.length)}`).join('; ');
}

/** The list of one queue's waiting callers, named for screen readers: "Callers waiting in Support". */
export function waitingListName(queueName: string): string {
  return `Callers waiting in ${queueName}`;
}

/** The button that makes a test caller arrive in a queue (shown only with the embedded simulator). */
export function sendCallerLabel(queueName: string): string {
  return `Send a test caller to ${queueName}`;
}

/** What became of the last test caller sent: where it went, or why it did not. */
export type CallerNote = { queueName: string; from: string } | { queueName: string; failure: string };

/** The line under the queues after a test caller was sent: "Sent +14155550123 to Support", or why not. */
export function callerNoteLabel(note: CallerNote): string {
  return 'from' in note ? `Sent a test caller, ${note.from}, to ${note.queueName}` : `No test caller was sent to ${note.queueName} (${note.failure}); try again`;
}
