import type { TimingEvent } from './types.js';

/** The milestones of a call that `onTiming` reports. */
export type CallMilestone = 'call_admitted' | 'invite_received' | 'media_connected' | 'connected' | 'ended';

/** Reports one milestone to `onTiming` (the status store's `timing`). */
export type ReportTiming = (name: TimingEvent['name'], startedAt: number | undefined, callId: string) => void;

/**
 * The calls this helper has seen (a reconciling read adopts only a call it has not) and the milestones
 * reported for each, once per call and milestone: reads and SIP events may both report the same moment.
 * Only the last `limit` calls are kept, so a page that makes thousands of calls does not grow.
 */
export function createCallMilestones(timing: ReportTiming, limit: number) {
  const recent = new Map<string, Set<string>>();
  const remember = (callId: string): Set<string> => {
    let milestones = recent.get(callId);
    if (!milestones) {
      milestones = new Set();
      recent.set(callId, milestones);
      // Map keeps insertion order: the oldest call goes first.
      if (recent.size > limit) recent.delete(recent.keys().next().value as string);
    }
    return milestones;
  };
  return {
    remember,
    seen: (callId: string): boolean => recent.has(callId),
    /** Reports `name` for `callId`, timed from `startedAt` (untimed without one), unless it already was. */
    report(name: CallMilestone, callId: string | undefined, startedAt: number | undefined): void {
      if (!callId) return;
      const milestones = remember(callId);
      if (milestones.has(name)) return;
      milestones.add(name);
      timing(name, startedAt, callId);
    },
  };
}
