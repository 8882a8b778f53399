import { useEffect, useState } from 'preact/hooks';
import type { VoiceBrowserStatus } from '../../lib/index.js';

/**
 * Seconds the current call has been connected, counted from the moment the page saw `connected` (spec 3.2:
 * the service's word, not local audio); it stops at the end and stays until the next call.
 */
export function useCallTimer(status: VoiceBrowserStatus): number | null {
  const callId = status.call?.id ?? null;
  const connected = status.call?.state === 'connected';
  const [since, setSince] = useState<{ callId: string; at: number } | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (connected && callId && since?.callId !== callId) setSince({ callId, at: Date.now() });
  }, [connected, callId, since]);

  useEffect(() => {
    if (!connected) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    setNow(Date.now());
    return () => clearInterval(timer);
  }, [connected]);

  if (!since || since.callId !== callId) return null;
  return Math.max(0, Math.floor((now - since.at) / 1000));
}
