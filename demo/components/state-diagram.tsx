import { BROWSER_CALL_STATES, CONNECTION_STATES, type VoiceBrowserStatus } from '../../lib/index.js';
import type { StatePaths } from '../models/state-paths.js';

/** Props of {@link StateDiagram}. */
export interface StateDiagramProps {
  /** Accessible name, e.g. "Call states". */
  label: string;
  /** The states to draw, in their usual order. */
  states: readonly string[];
  current: string | null;
  /** The states visited, in order (the path taken). */
  path: readonly string[];
}

/** A live state diagram: every state, the current one highlighted, and the path taken numbered in order. */
export function StateDiagram({ label, states, current, path }: StateDiagramProps) {
  return (
    <figure class="diagram" aria-label={label}>
      <figcaption>{label}</figcaption>
      <ol>
        {states.map((state) => {
          const steps = path.flatMap((visited, i) => (visited === state ? [i + 1] : []));
          const classes = [state === current ? 'current' : '', steps.length > 0 ? 'visited' : ''].filter(Boolean).join(' ');
          return (
            <li key={state} class={classes} aria-current={state === current ? 'step' : undefined}>
              {state}
              {steps.length > 0 && <span class="steps"> {steps.join(',')}</span>}
            </li>
          );
        })}
      </ol>
      <p class="path">Path: {path.length > 0 ? path.join(' → ') : '—'}</p>
    </figure>
  );
}

/** The connection's and the current call's live diagrams, side by side. */
export function StateDiagrams({ status, paths }: { status: VoiceBrowserStatus; paths: StatePaths }) {
  return (
    <section aria-label="State diagrams">
      <StateDiagram label="Connection states" states={CONNECTION_STATES} current={status.connection} path={paths.connection} />
      <StateDiagram label="Call states" states={BROWSER_CALL_STATES} current={status.call?.state ?? null} path={paths.call} />
    </section>
  );
}
