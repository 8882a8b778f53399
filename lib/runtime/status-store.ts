import type { VoiceBrowserOptions } from '../core/helper-types.js';
import type { TimingEvent, VoiceBrowserStatus } from '../core/types.js';
import type { Clock } from '../core/clock.js';
import { deepFreeze, INITIAL_STATUS } from '../core/status-snapshot.js';

/**
 * The helper's status and its timing reports: every change goes through `commit` (STYLE: SIP.js
 * `stateTransition`), so there is one place that freezes, stores and notifies.
 */

export interface StatusStore {
  get(): VoiceBrowserStatus;
  commit(patch: Partial<VoiceBrowserStatus>): void;
  /**
   * Reports a milestone (or a quality sample, or a warning) to `onTiming`, timed from `startedAt`; without one
   * (a call that recover() found: it did not start in this page) the event has no `sinceStartMs`.
   */
  timing(name: TimingEvent['name'], startedAt: number | undefined, callId?: string, extra?: Pick<TimingEvent, 'quality' | 'warning'>): void;
}

export function createStatusStore(options: Pick<VoiceBrowserOptions, 'onStatus' | 'onTiming'>, clock: Clock): StatusStore {
  let status = INITIAL_STATUS;
  return {
    get: () => status,
    commit(patch) {
      status = deepFreeze({ ...status, ...patch });
      options.onStatus?.(status);
    },
    timing(name, startedAt, callId, extra) {
      const at = clock.now();
      options.onTiming?.({
        name,
        at,
        ...(startedAt === undefined ? {} : { sinceStartMs: at - startedAt }),
        ...(callId ? { callId } : {}),
        ...extra,
      });
    },
  };
}
