import { useCallback, useEffect, useState } from 'preact/hooks';
import { errorMessage } from './voice-actions.js';
import { useSecondTick } from './use-second-tick.js';
import { listRecordings, listSupervisedCalls, type CallRecording } from '../supervision-api.js';
import { mergeSupervisedRows, type SupervisedRow } from '../supervision-labels.js';

/**
 * A supervisor's model: the calls in progress of their agents, read from the proxy every few seconds (one read
 * each time, within the key's budget), with the calls that ended since kept below them; and each call's
 * recordings, read when asked for. A user the proxy answers 404 is no supervisor: the page shows nothing and
 * reads no more.
 */

/** How often the supervised calls are read again. */
export const SUPERVISION_REFRESH_MS = 4000;

/** A call's recordings as the page knows them: not asked for, being read, read, or why not. */
export type RecordingsView = { state: 'loading' } | { state: 'read'; recordings: CallRecording[] } | { state: 'failed'; error: string };

/** What {@link useSupervision} gives the page. */
export interface SupervisionModel {
  /** Null until the first read says; false for a user who supervises nobody. */
  supervisor: boolean | null;
  rows: SupervisedRow[];
  /** Why the last read failed, or null. */
  error: string | null;
  /** Now, as epoch ms, moving each second while a call is listed (the calls' durations). */
  now: number;
  recordings: Readonly<Record<string, RecordingsView>>;
  /** Reads the call's recordings (again). */
  loadRecordings(callId: string): void;
}

/**
 * The supervisor's calls and recordings (see the file comment). Only a user the login says may supervise is asked
 * about (`enabled`): anyone else's page never makes the read whose 404 the browser would log as a failure.
 */
export function useSupervision(enabled: boolean): SupervisionModel {
  const [supervisor, setSupervisor] = useState<boolean | null>(null);
  const [rows, setRows] = useState<SupervisedRow[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [recordings, setRecordings] = useState<Record<string, RecordingsView>>({});

  useEffect(() => {
    if (!enabled) {
      setSupervisor(false);
      return;
    }
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () => {
      listSupervisedCalls().then(
        (calls) => {
          if (!live) return;
          setSupervisor(calls !== null);
          if (calls === null) return;
          setError(null);
          setRows((previous) => mergeSupervisedRows(previous, calls));
          timer = setTimeout(read, SUPERVISION_REFRESH_MS);
        },
        (failure: unknown) => {
          if (!live) return;
          setError(errorMessage(failure));
          timer = setTimeout(read, SUPERVISION_REFRESH_MS);
        },
      );
    };
    read();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [enabled]);

  const loadRecordings = useCallback((callId: string) => {
    setRecordings((known) => ({ ...known, [callId]: { state: 'loading' } }));
    listRecordings(callId).then(
      (list) => setRecordings((known) => ({ ...known, [callId]: { state: 'read', recordings: list } })),
      (failure: unknown) => setRecordings((known) => ({ ...known, [callId]: { state: 'failed', error: errorMessage(failure) } })),
    );
  }, []);

  const now = useSecondTick(rows.some((row) => row.inProgress));
  return { supervisor, rows, error, now, recordings, loadRecordings };
}
