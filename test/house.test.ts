import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from './support/source-imports.js';

/**
 * The house's one direction (docs/architecture.md; STYLE: layers point one way): no file of ours imports,
 * through any chain of static imports, a file that imports it back. Type imports count: a type is coupling too.
 */

const FOLDERS = ['lib', 'contract', 'server-proxy', 'simulator', 'scripts'];

/** The static imports among `files`: each file and those of `files` it imports. */
const graphOf = (files: readonly string[]): Map<string, string[]> =>
  new Map(files.map((file) => [file, importsOf(file).filter((edge) => !edge.dynamic && files.includes(edge.to)).map((edge) => edge.to)]));

/** Every cycle in a graph of imports, each as the chain of files it runs through. */
function cyclesIn(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): void => {
    path.push(file);
    for (const next of edges.get(file) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) cycles.push([...path.slice(at), next]);
      else if (!done.has(next)) visit(next);
    }
    path.pop();
    done.add(file);
  };
  for (const file of edges.keys()) if (!done.has(file)) visit(file);
  return cycles;
}

describe('the source tree', () => {
  it('has no cycle of imports in any of its folders or between them', () => {
    const files = FOLDERS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(60);
    expect(cyclesIn(graphOf(files)).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('is read by a check that finds two files importing each other, and a longer ring', () => {
    expect(cyclesIn(new Map([['a', ['b']], ['b', ['a']]]))).toEqual([['a', 'b', 'a']]);
    expect(cyclesIn(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c', 'a']]);
    expect(cyclesIn(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toEqual([]);
  });

  it('has no source file of lib, server-proxy, simulator or demo past 300 lines (a file a reader takes in whole)', () => {
    const files = ['lib', 'server-proxy', 'simulator', 'demo'].flatMap((folder) =>
      readdirSync(folder, { recursive: true, encoding: 'utf8' })
        .filter((name) => /\.tsx?$/.test(name) && !/(^|\/)(dist|node_modules)\//.test(name))
        .map((name) => `${folder}/${name}`),
    );
    expect(files.length).toBeGreaterThan(100);
    const long = files.map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 })).filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });
});
