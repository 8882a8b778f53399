import type { TimingEvent } from 'voice-browser';

/**
 * What spans the page, as pure functions (tested directly in the demo's unit tests): the event log, and
 * where an error shows. The words of each part (the call, the connection, the setup test, the queues) are in
 * label modules of their own beside this one.
 */

/**
 * The event log after `event`: milestones append (the last 50 kept); a call's quality sample replaces the one
 * before it, so the log shows one live quality line per call rather than a line every 2 s.
 */
export function logEvent(log: readonly TimingEvent[], event: TimingEvent): TimingEvent[] {
  const last = log.at(-1);
  if (event.name === 'call_quality' && last?.name === 'call_quality' && last.callId === event.callId) return [...log.slice(0, -1), event];
  return [...log.slice(-49), event];
}

/** Where an error shows: beside the connection's buttons, on the call card, or on the queue panel. */
export type ErrorArea = 'connection' | 'call' | 'queue';

/** Codes only one side of the page causes; any other shows beside the action that was taken last. */
const ERROR_HOMES: Readonly<Record<string, ErrorArea>> = {
  connection_failed: 'connection',
  cleanup_unknown: 'connection',
  audio_playback_blocked: 'call',
  audio_path_failed: 'call',
  turn_refused: 'call',
  dtmf_outcome_unknown: 'call',
  no_active_call: 'call',
  call_outcome_unknown: 'call',
  browser_agent_busy: 'call',
  compliance_dnc: 'call',
  queue_empty: 'queue',
  dequeue_outcome_unknown: 'queue',
};

/** Where the error with `code` shows: its own side when only one side causes it, else the last action's. */
export function errorArea(code: string, lastAction: ErrorArea): ErrorArea {
  return ERROR_HOMES[code] ?? lastAction;
}
