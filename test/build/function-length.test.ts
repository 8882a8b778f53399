import { describe, expect, it } from 'vitest';
import { functionLengths, functionLengthsOf, lengthBreaches } from '../support/function-lengths.js';
import { sourcesUnder } from '../support/sources.js';

/**
 * No function of the house past about 60 lines (STYLE: "A function past about 60 lines, or a closure that hands
 * itself to helpers that call it back, is the sign to split"), counted as the lines of its body, nested
 * functions included, in every package's sources and the demo's.
 */

const LIMIT = 60;
const FOLDERS = ['lib', 'server-proxy', 'simulator', 'demo', 'contract'];

/**
 * The functions still past the limit, each with the most lines it may take (its length when listed). The list
 * only shrinks: a function split to the limit must leave it, and none may grow.
 */
const LEFT: Record<string, number> = {
  'lib/runtime/runtime.ts createRuntime': 200,
};

/** A source text with one function of `lines` body lines, named `name`. */
const sourceWith = (name: string, lines: number) =>
  [`export function ${name}(): number {`, '  let n = 0;', ...Array.from({ length: lines - 4 }, () => '  n += 1;'), '  return n;', '}', ''].join('\n');

describe('functions of the house', () => {
  it(`are at most ${LIMIT} lines long, but for those LEFT, which only shrink`, () => {
    const lengths = FOLDERS.flatMap((folder) => sourcesUnder(folder)).flatMap(functionLengths);
    expect(lengths.length).toBeGreaterThan(1000);
    expect(lengthBreaches(lengths, LIMIT, LEFT)).toEqual({ unlisted: [], grown: [], shortened: [] });
  });

  it('are measured from the body, and held by a check that fails on one too long, one grown and one shortened', () => {
    // The body of `sourceWith(name, n)` spans n lines, its braces included.
    expect(functionLengthsOf('x.ts', sourceWith('long', 61))).toEqual([{ name: 'x.ts long', lines: 61 }]);
    expect(functionLengthsOf('y.tsx', 'const View = () => (\n  <p>\n    {1}\n  </p>\n);\n')).toEqual([{ name: 'y.tsx View', lines: 5 }]);

    const lengths = [...functionLengthsOf('a.ts', sourceWith('tooLong', 61)), ...functionLengthsOf('b.ts', sourceWith('fits', 60))];
    expect(lengthBreaches(lengths, LIMIT, {})).toEqual({ unlisted: ['a.ts tooLong: 61 (60)'], grown: [], shortened: [] });
    expect(lengthBreaches(lengths, LIMIT, { 'a.ts tooLong': 61 })).toEqual({ unlisted: [], grown: [], shortened: [] });
    expect(lengthBreaches(lengths, LIMIT, { 'a.ts tooLong': 70, 'b.ts fits': 70 })).toEqual({ unlisted: [], grown: [], shortened: ['b.ts fits'] });
    expect(lengthBreaches(functionLengthsOf('a.ts', sourceWith('tooLong', 75)), LIMIT, { 'a.ts tooLong': 70 })).toEqual({ unlisted: [], grown: ['a.ts tooLong: 75 (70)'], shortened: [] });
  });
});
