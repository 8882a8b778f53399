import { BROWSER_CALL_STATES, BROWSER_CALL_TRANSITIONS, CONNECTION_STATES, CONNECTION_TRANSITIONS, type VoiceBrowserStatus } from 'voice-browser';
import { BOX, layoutDiagram, type DiagramShape } from '../models/diagram-layout.js';
import type { StatePaths } from '../models/state-paths.js';

/** Props of {@link StateDiagram}. */
export interface StateDiagramProps {
  /** Accessible name, e.g. "Call states"; also names the arrowheads' markers. */
  label: string;
  /** The states to draw, in their usual order. */
  states: readonly string[];
  /** The moves between them, `[from, to]`. */
  moves: ReadonlyArray<readonly [string, string]>;
  current: string | null;
  /** The states visited, in order (the path taken). */
  path: readonly string[];
  /** A ring on a wide screen, one column on a phone. */
  shape: DiagramShape;
}

/** The id of an arrowhead marker of the diagram labelled `label`: ids are page-wide. */
const markerId = (label: string, kind: 'move' | 'taken') => `${label.toLowerCase().replace(/\W+/g, '-')}-${kind}`;

function Arrowhead({ id }: { id: string }) {
  return (
    <marker id={id} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
      <path d="M0,0 L10,5 L0,10 z" />
    </marker>
  );
}

/**
 * A live state diagram in SVG: every state and every move the library lists, the moves of the path taken
 * drawn bold, the current state filled; the path also in words below, for readers and screen readers.
 */
export function StateDiagram({ label, states, moves, current, path, shape }: StateDiagramProps) {
  const layout = layoutDiagram(states, moves, path, shape);
  const visited = new Set(path);
  const words = path.length > 0 ? path.join(' → ') : '—';
  return (
    <figure class="diagram" aria-label={label}>
      <figcaption>{label}</figcaption>
      <svg viewBox={`0 0 ${layout.width} ${layout.height}`} style={{ maxWidth: `${layout.width}px` }} role="img" aria-label={`${label}: now ${current ?? 'none'}; path ${words}`}>
        <defs>
          <g class="move-head">
            <Arrowhead id={markerId(label, 'move')} />
          </g>
          <g class="taken-head">
            <Arrowhead id={markerId(label, 'taken')} />
          </g>
        </defs>
        {layout.edges.map((edge) => (
          <path
            key={`${edge.from}-${edge.to}-${edge.skipped}`}
            class={['move', edge.taken ? 'taken' : '', edge.skipped ? 'skipped' : ''].filter(Boolean).join(' ')}
            d={edge.d}
            marker-end={`url(#${markerId(label, edge.taken ? 'taken' : 'move')})`}
            data-move={`${edge.from} → ${edge.to}`}
          />
        ))}
        {layout.nodes.map(({ state, x, y }) => (
          <g
            key={state}
            class={['state', state === current ? 'current' : '', visited.has(state) ? 'visited' : ''].filter(Boolean).join(' ')}
            aria-current={state === current ? 'step' : undefined}
          >
            <rect x={x - BOX.width / 2} y={y - BOX.height / 2} width={BOX.width} height={BOX.height} rx="17" />
            <text x={x} y={y} text-anchor="middle" dominant-baseline="central">
              {state}
            </text>
          </g>
        ))}
      </svg>
      <p class="path">Path: {words}</p>
    </figure>
  );
}

/** The connection's and the current call's live diagrams. */
export function StateDiagrams({ status, paths, shape }: { status: VoiceBrowserStatus; paths: StatePaths; shape: DiagramShape }) {
  return (
    <section aria-label="State diagrams">
      <h2>State diagrams</h2>
      <StateDiagram label="Connection states" states={CONNECTION_STATES} moves={CONNECTION_TRANSITIONS} current={status.connection} path={paths.connection} shape={shape} />
      <StateDiagram label="Call states" states={BROWSER_CALL_STATES} moves={BROWSER_CALL_TRANSITIONS} current={status.call?.state ?? null} path={paths.call} shape={shape} />
    </section>
  );
}
