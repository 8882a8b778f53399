import { describe, expect, it } from 'vitest';
import { BOX, layoutDiagram } from '../../demo/models/diagram-layout.js';
import { BROWSER_CALL_STATES, BROWSER_CALL_TRANSITIONS, CONNECTION_STATES, CONNECTION_TRANSITIONS } from '../../lib/index.js';

/** The state diagrams' layout (demo/models/diagram-layout.ts): every state and move drawn, the path marked. */

/** Points along an SVG path of one segment (`M x,y` then `L`, `Q` or `C`), by its Bézier polynomial. */
function pointsAlong(d: string): Array<[number, number]> {
  const p = [...d.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((match): [number, number] => [Number(match[1]), Number(match[2])]);
  const at = (t: number): [number, number] => {
    // De Casteljau: repeatedly blend neighbouring control points.
    let points = p;
    while (points.length > 1) points = points.slice(1).map((next, i): [number, number] => [points[i]![0] + (next[0] - points[i]![0]) * t, points[i]![1] + (next[1] - points[i]![1]) * t]);
    return points[0]!;
  };
  return Array.from({ length: 21 }, (_, i) => at(i / 20));
}

const overlap = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.abs(a.x - b.x) < BOX.width && Math.abs(a.y - b.y) < BOX.height;

describe('the state diagram layout', () => {
  for (const [name, states, moves, shape] of [
    ['connection', CONNECTION_STATES, CONNECTION_TRANSITIONS, 'ring'],
    ['call', BROWSER_CALL_STATES, BROWSER_CALL_TRANSITIONS, 'ring'],
    ['connection', CONNECTION_STATES, CONNECTION_TRANSITIONS, 'column'],
    ['call', BROWSER_CALL_STATES, BROWSER_CALL_TRANSITIONS, 'column'],
  ] as const) {
    it(`draws every ${name} state once as a ${shape}, inside the drawing, no two boxes overlapping, and every move as an arrow`, () => {
      const layout = layoutDiagram(states, moves, [], shape);
      expect(layout.nodes.map((node) => node.state)).toEqual([...states]);
      for (const node of layout.nodes) {
        expect(node.x - BOX.width / 2).toBeGreaterThanOrEqual(0);
        expect(node.y - BOX.height / 2).toBeGreaterThanOrEqual(0);
        expect(node.x + BOX.width / 2).toBeLessThanOrEqual(layout.width);
        expect(node.y + BOX.height / 2).toBeLessThanOrEqual(layout.height);
      }
      for (const [i, a] of layout.nodes.entries()) for (const b of layout.nodes.slice(i + 1)) expect(overlap(a, b), `${a.state} and ${b.state}`).toBe(false);
      expect(layout.edges.map((edge) => [edge.from, edge.to])).toEqual(moves.map(([from, to]) => [from, to]));
      expect(layout.edges.every((edge) => !edge.taken && !edge.skipped)).toBe(true);
      // Every point of every arrow lies inside the drawing.
      for (const edge of layout.edges) {
        for (const [x, y] of pointsAlong(edge.d)) {
          expect(x, edge.d).toBeGreaterThanOrEqual(0);
          expect(x, edge.d).toBeLessThanOrEqual(layout.width);
          expect(y, edge.d).toBeGreaterThanOrEqual(0);
          expect(y, edge.d).toBeLessThanOrEqual(layout.height);
        }
      }
    });
  }

  it('in a column, goes to the next state straight down and to any other by an arc outside the column: right going down, left going up', () => {
    const layout = layoutDiagram(CONNECTION_STATES, CONNECTION_TRANSITIONS, [], 'column');
    const x = layout.nodes[0]!.x;
    const d = (from: string, to: string) => layout.edges.find((edge) => edge.from === from && edge.to === to)!.d;
    expect(d('disconnected', 'connecting')).toMatch(/^M[\d.]+,[\d.]+ L[\d.]+,[\d.]+$/);
    const control = (path: string) => Number(path.split(' ')[1]!.slice(1).split(',')[0]);
    expect(control(d('disconnected', 'disconnecting'))).toBeGreaterThan(x + BOX.width / 2);
    expect(control(d('disconnecting', 'disconnected'))).toBeLessThan(x - BOX.width / 2);
    // A longer arc bulges further than a shorter one on the same side, so they nest.
    expect(control(d('disconnected', 'disconnecting'))).toBeGreaterThan(control(d('ready', 'disconnecting')));
  });

  it('marks the moves the path took, and draws a jump the list lacks as a skipped arrow of its own', () => {
    // Two reads a second apart: waiting_agent, then connected, dialing_recipient unseen.
    const layout = layoutDiagram(BROWSER_CALL_STATES, BROWSER_CALL_TRANSITIONS, ['waiting_agent', 'connected', 'ending', 'ended']);
    const taken = layout.edges.filter((edge) => edge.taken).map((edge) => `${edge.from} → ${edge.to}${edge.skipped ? ' (skipped)' : ''}`);
    expect(taken.sort()).toEqual(['connected → ending', 'ending → ended', 'waiting_agent → connected (skipped)']);
    expect(layout.edges).toHaveLength(BROWSER_CALL_TRANSITIONS.length + 1);
  });

  it('draws a state the list adds, and no arrow to a state it does not know', () => {
    const layout = layoutDiagram(['a', 'b', 'c'], [['a', 'b'], ['b', 'gone']], ['a', 'b', 'c']);
    expect(layout.nodes.map((node) => node.state)).toEqual(['a', 'b', 'c']);
    expect(layout.edges.map((edge) => `${edge.from} → ${edge.to} ${edge.taken} ${edge.skipped}`)).toEqual(['a → b true false', 'b → c true true']);
  });

  it('bows a move and its way back to opposite sides, so the two never lie on each other', () => {
    const layout = layoutDiagram(CONNECTION_STATES, CONNECTION_TRANSITIONS, []);
    const there = layout.edges.find((edge) => edge.from === 'connecting' && edge.to === 'disconnected')!.d;
    const back = layout.edges.find((edge) => edge.from === 'disconnected' && edge.to === 'connecting')!.d;
    const control = (d: string) => d.split(' ')[1]!.slice(1);
    expect(control(there)).not.toEqual(control(back));
  });
});
