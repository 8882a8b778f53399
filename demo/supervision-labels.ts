import type { VoiceBrowserStatus } from 'voice-browser';
import type { CallRecording, SupervisedCall } from './supervision-api.js';

/**
 * A supervisor's words, and the call card's for a monitor leg and a recording, as pure functions (tested in
 * the demo's unit tests).
 */

/** How many calls the supervisor's list keeps, the ones that ended included (their recordings stay reachable). */
export const SUPERVISED_ROWS_KEPT = 10;

/** One row of the supervisor's list: the call as last read, and whether the last read still listed it. */
export interface SupervisedRow extends SupervisedCall {
  inProgress: boolean;
}

/** A demo user's name from their id (`demo:<username>`); a queue's caller bridged to an agent outside the team: "another agent". */
export function agentLabel(agent: string | null): string {
  if (agent === null) return 'another agent';
  return agent.startsWith('demo:') ? agent.slice('demo:'.length) : agent;
}

/**
 * The list after a read: the calls it lists, in its order, then those an earlier read listed, now ended, newest
 * first, up to {@link SUPERVISED_ROWS_KEPT} in all.
 */
export function mergeSupervisedRows(previous: readonly SupervisedRow[], read: readonly SupervisedCall[]): SupervisedRow[] {
  const listed = new Set(read.map((row) => row.call.id));
  const current = read.map((row) => ({ ...row, inProgress: true }));
  const ended = previous.filter((row) => !listed.has(row.call.id)).map((row) => ({ ...row, inProgress: false }));
  return [...current, ...ended].slice(0, SUPERVISED_ROWS_KEPT);
}

/** Who a supervised call is between: "From +14155550123 to +12025550100". */
export function supervisedPartiesLabel(call: SupervisedCall['call']): string {
  return `From ${call.from ?? 'an unknown number'} to ${call.to ?? 'an unknown number'}`;
}

/** A supervised call's state in words: connecting, connected, or ended once no read lists it. */
export function supervisedStateLabel(row: SupervisedRow): string {
  if (!row.inProgress) return 'ended';
  switch (row.call.state) {
    case 'connected':
    case 'established':
      return 'connected';
    case 'waiting_agent':
    case 'dialing_recipient':
    case 'dequeuing':
      return 'connecting';
    default:
      return row.call.state.replace(/_/g, ' ');
  }
}

/** Seconds since a supervised call was answered (else since it was made) at `now`; null when it says neither. */
export function supervisedSeconds(call: SupervisedCall['call'], now: number): number | null {
  const since = Date.parse(call.answeredAt ?? call.createdAt ?? '');
  return Number.isNaN(since) ? null : Math.max(0, Math.floor((now - since) / 1000));
}

/** The call listened to, when the page's current call (or attempt) is a monitor leg; else null. */
export function monitoredCallId(status: VoiceBrowserStatus): string | null {
  const fromCall = status.call?.kind === 'monitor' && typeof status.call.monitoredCallId === 'string' ? status.call.monitoredCallId : null;
  return fromCall ?? status.attempt?.monitor ?? null;
}

/** Whom the page's monitor leg listens to and that call's parties, from the supervisor's list; null when it is none or unlisted. */
export function monitoredFrom(status: VoiceBrowserStatus, rows: readonly SupervisedRow[]): { agent: string; parties: string } | null {
  const callId = monitoredCallId(status);
  const row = callId === null ? undefined : rows.find((candidate) => candidate.call.id === callId);
  return row ? { agent: agentLabel(row.agent), parties: supervisedPartiesLabel(row.call) } : null;
}

/** The call card's words for a monitor leg ("Listening to agent1"), or null when the current call is none. */
export function monitorAnnouncement(status: VoiceBrowserStatus, agent: string | null): string | null {
  if (monitoredCallId(status) === null) return null;
  const whom = agent ?? 'the call';
  const state = status.call?.state;
  if (state === 'connected') return `Listening to ${whom}`;
  if (state === 'ended' || state === 'failed') return monitorEndLabel(status.call?.endReason ?? null, agent, state === 'failed');
  if (state === 'ending') return 'Leaving the call';
  if (status.attempt?.phase === 'outcome_unknown') return `Listening in to ${whom} may have started: finding out`;
  return `Listening in to ${whom}: connecting this page`;
}

/**
 * Why a monitor leg is over, from its `endReason` (the service's monitor leg: `call_ended` when the call listened
 * to ended, `agent_hangup` or `api_hangup` when the supervisor stopped, `session_ended` with their session).
 */
export function monitorEndLabel(endReason: string | null, agent: string | null, failed: boolean): string {
  const whom = agent ?? 'the call';
  if (endReason === 'call_ended') return agent ? `${agent}'s call ended, so listening stopped` : 'The call ended, so listening stopped';
  if (endReason === 'agent_hangup' || endReason === 'api_hangup') return `Stopped listening to ${whom}`;
  if (endReason === 'session_ended') return `Stopped listening to ${whom}: this page's session ended`;
  return failed ? `Could not listen to ${whom}` : `Listening to ${whom} ended`;
}

/** The record button's words: what pressing it does. */
export function recordButtonLabel(status: VoiceBrowserStatus): string {
  return status.recording ? 'Stop recording' : 'Record';
}

/** Record is offered on a connected call of this page's own (a monitor leg is not one). */
export function canRecord(status: VoiceBrowserStatus): boolean {
  return status.call?.state === 'connected' && monitoredCallId(status) === null;
}

/** A recording in words: "Recording 1, 4.2 s", or that it still records. */
export function recordingLabel(recording: CallRecording, index: number): string {
  if (recording.state === 'recording') return `Recording ${index + 1}, still recording`;
  const seconds = typeof recording.durationMs === 'number' ? `, ${(recording.durationMs / 1000).toFixed(1)} s` : '';
  return `Recording ${index + 1}${seconds}`;
}
