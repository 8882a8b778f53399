import { useEffect, useState } from 'preact/hooks';

/** Wide enough for the diagrams' ring shape: below it they stand in one column (`layoutDiagram`). */
const WIDE = '(min-width: 45rem)';

/** Whether the window is wide (see {@link WIDE}), following it as it resizes. */
export function useWideScreen(): boolean {
  const [wide, setWide] = useState(() => window.matchMedia(WIDE).matches);
  useEffect(() => {
    const query = window.matchMedia(WIDE);
    const follow = () => setWide(query.matches);
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);
  return wide;
}
