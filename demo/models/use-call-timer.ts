import { useEffect, useState } from 'preact/hooks';
import type { BrowserCall, VoiceBrowserStatus } from 'voice-browser';
import { useSecondTick } from './use-second-tick.js';

/**
 * When the call's timer starts: the moment the page saw `connected` (spec 3.2: the service's word, not local
 * audio), read on this page's clock. A call first seen already connected (one recover() found after a
 * reload) started before the page was there: its timer counts from the service's `answeredAt`, when given.
 */
export function timerStart(call: BrowserCall, firstSeenConnected: boolean, now: number): number {
  const answeredAt = typeof call.answeredAt === 'string' ? Date.parse(call.answeredAt) : NaN;
  return firstSeenConnected && Number.isFinite(answeredAt) ? Math.min(answeredAt, now) : now;
}

/** Seconds the current call has been connected (see {@link timerStart}); it stops at the end and stays until the next call. */
export function useCallTimer(status: VoiceBrowserStatus): number | null {
  const call = status.call;
  const callId = call?.id ?? null;
  const connected = call?.state === 'connected';
  const [firstSeen, setFirstSeen] = useState<{ callId: string; state: string } | null>(null);
  const [since, setSince] = useState<{ callId: string; at: number } | null>(null);

  useEffect(() => {
    if (call && firstSeen?.callId !== call.id) setFirstSeen({ callId: call.id, state: call.state });
  }, [call, firstSeen]);

  useEffect(() => {
    if (connected && call && since?.callId !== call.id) setSince({ callId: call.id, at: timerStart(call, firstSeen?.callId !== call.id || firstSeen.state === 'connected', Date.now()) });
  }, [connected, call, since, firstSeen]);

  const now = useSecondTick(connected);

  if (!since || since.callId !== callId) return null;
  return Math.max(0, Math.floor((now - since.at) / 1000));
}
