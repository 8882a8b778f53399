import { useEffect, useMemo, useState } from 'preact/hooks';
import { errorMessage } from './voice-actions.js';
import { queueNamer, queueRows, type QueueRow } from './queue-rows.js';
import { useSecondTick } from './use-second-tick.js';
import { listQueues, type DemoQueue } from '../api.js';
import type { QueueCaller, VoiceBrowser } from 'voice-browser';

/**
 * The support desk's model (spec 2.6: callers wait in queues, claimed first in, first out): the user's queues,
 * read once from the proxy, and the callers waiting in them as the current helper's `watchQueues()` reports
 * them, with a clock that ticks every second while anyone waits so their wait times count up.
 *
 * @remarks
 * The watch belongs to the helper: a rebuilt helper (new devices applied at Connect) is watched afresh and the
 * old watch stopped; leaving the page (a logout unmounts it) stops it too.
 */

/** What {@link useQueues} gives the page. */
export interface QueuesModel {
  /** Each queue with its waiting callers, oldest first, and their wait in seconds. */
  rows: QueueRow[];
  /** A queue's name by its id (the call card names an inbound caller's queue). */
  nameOf(queueId: string): string;
  /** Why the list of queues could not be read, or null. */
  error: string | null;
}

/** The queues the proxy lists for the user, read once; a failure is kept in words. */
function useQueueList(): { queues: DemoQueue[]; error: string | null } {
  const [list, setList] = useState<{ queues: DemoQueue[]; error: string | null }>({ queues: [], error: null });
  useEffect(() => {
    let live = true;
    listQueues().then(
      (queues) => live && setList({ queues, error: null }),
      (error: unknown) => live && setList({ queues: [], error: errorMessage(error) }),
    );
    return () => void (live = false);
  }, []);
  return list;
}

/** The queues and their waiting callers, watched through `helper` (see the file comment). */
export function useQueues(helper: VoiceBrowser): QueuesModel {
  const { queues, error } = useQueueList();
  const [callers, setCallers] = useState<readonly QueueCaller[]>([]);
  useEffect(() => {
    // Nothing a replaced helper reported stays: its successor reports afresh.
    setCallers([]);
    return helper.watchQueues(setCallers);
  }, [helper]);
  const now = useSecondTick(callers.length > 0);
  const nameOf = useMemo(() => queueNamer(queues), [queues]);
  const rows = useMemo(() => queueRows(queues, callers, now), [queues, callers, now]);
  return { rows, nameOf, error };
}
