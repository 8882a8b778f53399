import { useEffect, useState } from 'preact/hooks';

/** Now, as epoch ms, moving on every second while `ticking` (a call's timer, the queue's wait times). */
export function useSecondTick(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
