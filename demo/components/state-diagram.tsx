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
