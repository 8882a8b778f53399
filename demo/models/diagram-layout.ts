/**
 * Where a state diagram's boxes and arrows go, as a pure function of the states, their moves (the lists the
 * library exports) and the path taken; the `StateDiagram` component draws the result as SVG.
 */

/** One state's box: its centre in drawing units. */
export interface DiagramNode {
  state: string;
  x: number;
  y: number;
}

/** One arrow, as an SVG path from box edge to box edge. */
export interface DiagramEdge {
  from: string;
  to: string;
  /** The path's `d`: a gentle curve, so a move and its way back never overlap. */
  d: string;
  /** The path taken went along this arrow. */
  taken: boolean;
  /**
   * Not a move of the list: the path went from one state to another with states between them unseen (two
   * reads a second apart can skip a state). Drawn dashed, so the drawing never claims a move the list lacks.
   */
  skipped: boolean;
}

export interface DiagramLayout {
  width: number;
  height: number;
  nodes: DiagramNode[];
  edges: DiagramEdge[];
}

/** The size of a state's box, in drawing units. */
export const BOX = { width: 150, height: 34 } as const;
const MARGIN = 8;
/** How far an arrow bows sideways, as a share of its length. */
const BOW = 0.14;

/** `from → to`, the key of a move. */
const moveKey = (from: string, to: string) => `${from} → ${to}`;

/** The point where the line from the box centred at (x, y) towards (tx, ty) leaves the box. */
function boxEdge(x: number, y: number, tx: number, ty: number): [number, number] {
  const dx = tx - x;
  const dy = ty - y;
  const scale = Math.min(dx === 0 ? Infinity : BOX.width / 2 / Math.abs(dx), dy === 0 ? Infinity : BOX.height / 2 / Math.abs(dy));
  return [x + dx * scale, y + dy * scale];
}

const round = (value: number) => Math.round(value * 10) / 10;

/** A curve from box to box, bowed to the left of its direction. */
function curve(a: DiagramNode, b: DiagramNode): string {
  const length = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const bow = length * BOW;
  const cx = (a.x + b.x) / 2 + ((b.y - a.y) / length) * bow;
  const cy = (a.y + b.y) / 2 - ((b.x - a.x) / length) * bow;
  const [x1, y1] = boxEdge(a.x, a.y, cx, cy);
  const [x2, y2] = boxEdge(b.x, b.y, cx, cy);
  return `M${round(x1)},${round(y1)} Q${round(cx)},${round(cy)} ${round(x2)},${round(y2)}`;
}

/** How the states stand: on an ellipse (a wide screen), or in one column with the moves as arcs (a phone). */
export type DiagramShape = 'ring' | 'column';

/** The height of a row of the column shape, and how far an arc bulges per row it spans. */
const ROW = 48;
const ARC_PER_ROW = 15;
const ARC_MIN = 14;

/** The states on an ellipse in the list's order, the first at the left and on clockwise. */
function ring(states: readonly string[]): { nodes: DiagramNode[]; width: number; height: number } {
  const count = Math.max(states.length, 1);
  const rx = Math.max(200, count * 34);
  const ry = Math.max(100, count * 18);
  const cx = MARGIN + BOX.width / 2 + rx;
  const cy = MARGIN + BOX.height / 2 + ry;
  const nodes = states.map((state, i): DiagramNode => {
    const angle = Math.PI + (i * 2 * Math.PI) / count;
    return { state, x: round(cx + rx * Math.cos(angle)), y: round(cy + ry * Math.sin(angle)) };
  });
  return { nodes, width: round(2 * cx), height: round(2 * cy) };
}

/** The widest arc of a column of `count` states: the first state to the last. */
const widestArc = (count: number) => ARC_MIN + ARC_PER_ROW * Math.max(count - 1, 1);

/** The states top to bottom in the list's order, room on both sides for the arcs. */
function column(states: readonly string[]): { nodes: DiagramNode[]; width: number; height: number } {
  const x = MARGIN + widestArc(states.length) + BOX.width / 2;
  const nodes = states.map((state, i): DiagramNode => ({ state, x, y: MARGIN + BOX.height / 2 + i * ROW }));
  return { nodes, width: round(2 * x), height: MARGIN * 2 + BOX.height + Math.max(states.length - 1, 0) * ROW };
}

/**
 * A move in the column: to the next state straight down; any other as an arc outside the column, on the right
 * going down and on the left going up, bulging by the rows it spans so arcs nest rather than overlap.
 */
function arc(a: DiagramNode, b: DiagramNode): string {
  const rows = Math.round((b.y - a.y) / ROW);
  if (rows === 1) return `M${a.x},${a.y + BOX.height / 2} L${b.x},${b.y - BOX.height / 2}`;
  const side = rows > 0 ? 1 : -1;
  const edge = a.x + (side * BOX.width) / 2;
  // Both control points this far out put the curve's widest point at 3/4 of it: the arc's own room.
  const bulge = edge + (side * 4 * (ARC_MIN + ARC_PER_ROW * (Math.abs(rows) - 1))) / 3;
  // Leave from the upper half of the box and arrive at the lower half, so an arc and its way back part.
  const y1 = a.y - side * 6;
  const y2 = b.y + side * 6;
  return `M${edge},${y1} C${round(bulge)},${y1} ${round(bulge)},${y2} ${edge},${y2}`;
}

/**
 * The diagram of `states` and their `moves`, with the moves of `path` marked taken, in either shape: the
 * states in the list's order, so a move between two states never runs through a third.
 */
export function layoutDiagram(
  states: readonly string[],
  moves: ReadonlyArray<readonly [string, string]>,
  path: readonly string[],
  shape: DiagramShape = 'ring',
): DiagramLayout {
  const { nodes, width, height } = shape === 'ring' ? ring(states) : column(states);
  const draw = shape === 'ring' ? curve : arc;
  const at = new Map(nodes.map((node) => [node.state, node]));

  const listed = new Set(moves.map(([from, to]) => moveKey(from, to)));
  const walked = new Set(path.slice(1).map((to, i) => moveKey(path[i]!, to)));
  const edges = moves
    .filter(([from, to]) => at.has(from) && at.has(to))
    .map(([from, to]): DiagramEdge => ({ from, to, d: draw(at.get(from)!, at.get(to)!), taken: walked.has(moveKey(from, to)), skipped: false }));
  for (const move of walked) {
    const [from, to] = move.split(' → ') as [string, string];
    if (!listed.has(move) && at.has(from) && at.has(to)) edges.push({ from, to, d: draw(at.get(from)!, at.get(to)!), taken: true, skipped: true });
  }
  return { width, height, nodes, edges };
}
