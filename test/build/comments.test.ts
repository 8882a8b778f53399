import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, sourcesUnder } from '../support/sources.js';

/**
 * Comments say why and cite the spec or an RFC (STYLE, "Comments"): none cites the tracker ("issue 32", "#32"),
 * whose numbers tell a reader of the code nothing, and none names a source file (`runtime.ts`), since files move
 * between folders and the comment would then point nowhere. A folder names what it holds, an export its name.
 */

/**
 * The comments each folder still holds against the rule, exactly: a folder may only go down (lower its count with
 * the comments you fix), and every one is to reach 0. Those in the bench and the scripts name the file they run or
 * read; the tests' and the e2e's name the test or support that proves the rest of a point.
 */
const LEFT: Record<string, number> = { bench: 1, contract: 0, demo: 0, e2e: 0, examples: 0, lib: 0, scripts: 1, 'server-proxy': 0, simulator: 0, test: 75 };

const ISSUE = /\bissues?\s+#?\d+|(?<![\w&/])#\d+\b/i;
const SOURCE_FILE = /[\w./-]*[\w-]\.tsx?\b/;

/**
 * Every comment of a TypeScript source, as its start and text: the trivia before each token of the parsed tree
 * (a raw scan loses its way in a template's `${}` or a regular expression, and would miss what follows).
 */
function commentsOf(source: string, jsx: boolean): Array<{ start: number; text: string }> {
  const file = ts.createSourceFile(jsx ? 'source.tsx' : 'source.ts', source, ts.ScriptTarget.Latest, true, jsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = new Map<number, string>();
  const visit = (node: ts.Node): void => {
    for (const range of [...(ts.getLeadingCommentRanges(source, node.pos) ?? []), ...(ts.getTrailingCommentRanges(source, node.end) ?? [])]) {
      found.set(range.pos, source.slice(range.pos, range.end));
    }
    node.getChildren(file).forEach(visit);
  };
  visit(file);
  return [...found].sort(([a], [b]) => a - b).map(([start, text]) => ({ start, text }));
}

/** Each comment line of a TypeScript source that cites the tracker or names a source file. */
function offendingComments(source: string, jsx = false): string[] {
  return commentsOf(source, jsx).flatMap(({ start, text }) => {
    const first = source.slice(0, start).split('\n').length;
    return text.split('\n').flatMap((line, at) => {
      const hit = ISSUE.exec(line) ?? SOURCE_FILE.exec(line);
      return hit ? [`${first + at}: ${hit[0]}`] : [];
    });
  });
}

/** Every offending comment line of a folder's TypeScript sources, its tests included, as `path:line: what`. */
function offendingIn(folder: string): string[] {
  return sourcesUnder(folder, { tests: true }).flatMap((path) => offendingComments(readFileSync(join(ROOT, path), 'utf8'), path.endsWith('x')).map((hit) => `${path}:${hit}`));
}

describe('comments in the sources', () => {
  it('cite the spec or an RFC, never the tracker or a source file (each folder holds exactly what it has left)', () => {
    const off = Object.entries(LEFT).flatMap(([folder, left]) => {
      const found = offendingIn(folder);
      if (found.length > left) return [`${folder}: ${found.length} (at most ${left})\n  ${found.join('\n  ')}`];
      return found.length < left ? [`${folder}: ${found.length} left, fewer than its ${left}: lower its count`] : [];
    });
    expect(off).toEqual([]);
  });

  it('are read by a check that finds an issue number and a file name, and lets the spec, an RFC and code be', () => {
    expect(offendingComments('// the ring (issue 33): fifteen seconds\nconst a = 1;')).toEqual(['1: issue 33']);
    expect(offendingComments('/**\n * As #32 asked.\n */')).toEqual(['2: #32']);
    expect(offendingComments('// runtime.ts commits it\n/* see lib/call-machine.ts */')).toEqual(['1: runtime.ts', '2: lib/call-machine.ts']);
    expect(offendingComments('<b>{/* labels.tsx words it */}</b>;', true)).toEqual(['1: labels.tsx']);
    expect(offendingComments("// spec 3.2: admission is not an answer; RFC 3261 section 14\nconst file = 'runtime.ts'; // a string, not a comment")).toEqual([]);
    expect(offendingComments('const a = `${1}/*`; // after a template: issue 33\nconst b = /\\/\\//; // after a regex: x.ts')).toEqual(['1: issue 33', '2: x.ts']);
  });
});
