import { useEffect, useState } from 'preact/hooks';
import { readCallersOffer, sendCaller, type CallersOffer } from '../callers-api.js';
import type { CallerNote } from '../queue-labels.js';

/**
 * Callers on demand (the Send a test caller buttons): whether the server can make a caller arrive (asked
 * once, as the phone page opens; never with a real service), and the last one sent. The caller then shows in
 * its queue as any caller, through the queue's own events.
 */

/** What {@link useCallers} gives the queue panel. */
export interface CallersModel {
  /** The server said it can send callers: the control shows. */
  available: boolean;
  /** The last caller sent, or why it was not. */
  note: CallerNote | null;
  send(queueId: string, queueName: string): void;
}

/** The model; see the file comment. */
export function useCallers(): CallersModel {
  const [offer, setOffer] = useState<CallersOffer>({ available: false, queues: [] });
  const [note, setNote] = useState<CallerNote | null>(null);
  useEffect(() => {
    let live = true;
    void readCallersOffer().then((read) => live && setOffer(read));
    return () => void (live = false);
  }, []);
  const send = (queueId: string, queueName: string) =>
    void sendCaller(queueId).then(
      (caller) => setNote({ queueName, from: caller.from }),
      (error: unknown) => setNote({ queueName, failure: error instanceof Error ? error.message : String(error) }),
    );
  return { available: offer.available, note, send };
}
