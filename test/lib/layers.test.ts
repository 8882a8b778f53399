import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/source-imports.js';

/**
 * lib/'s layers, drawn from its imports (STYLE: layers point one way): `core/` (shapes, rules, the pure machines)
 * under `runtime/` (the loop, its store, its ports as types), under `api/` (what a page calls), under
 * `platform/web/` (the only code that knows the browser, fetch and SIP.js), under the entry files at lib's top
 * (the packages' entries, the helper's factory, the SIP chunk's entry, the testing kit).
 */

const LIB = sourceFiles('lib');
const importersOf = (target: string) => LIB.filter((file) => importsOf(file).some((edge) => edge.to === target || edge.to.startsWith(`${target}/`)));

/** The layers, lowest first; a file of lib in none of these folders is an entry, on top. */
const LAYERS = ['lib/core/', 'lib/runtime/', 'lib/api/', 'lib/platform/web/'];
const layerOf = (file: string): number => {
  const at = LAYERS.findIndex((folder) => file.startsWith(folder));
  return at < 0 ? LAYERS.length : at;
};

/**
 * At most this many files in the longest chain of static imports among lib's files: an entry over the helper's
 * factory over an operation over the loop's reads over a machine over the shapes. The operations import the loop's
 * port types, not the file that builds the loop, so the four layers add no hidden floors; a ceiling that only comes down.
 */
const MAX_LEVELS = 7;

/** The static imports among `files` (type imports count: a type is coupling too). */
const graphOf = (files: readonly string[]): Map<string, string[]> =>
  new Map(files.map((file) => [file, importsOf(file).filter((edge) => !edge.dynamic && files.includes(edge.to)).map((edge) => edge.to)]));

/** The longest chain of imports in an acyclic graph, as the files it runs through, the importer first. */
function longestChain(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const memo = new Map<string, string[]>();
  const from = (file: string): string[] => {
    const known = memo.get(file);
    if (known) return known;
    const below = (edges.get(file) ?? []).map(from).reduce<string[]>((longest, chain) => (chain.length > longest.length ? chain : longest), []);
    const chain = [file, ...below];
    memo.set(file, chain);
    return chain;
  };
  return [...edges.keys()].map(from).reduce<string[]>((longest, chain) => (chain.length > longest.length ? chain : longest), []);
}

/** Every import that points up: from a file to one of a higher layer, by `layer`. */
const arrowsUp = (edges: ReadonlyMap<string, readonly string[]>, layer: (file: string) => number): string[] =>
  [...edges].flatMap(([from, targets]) => targets.filter((to) => layer(to) > layer(from)).map((to) => `${from} -> ${to}`));

describe('lib/ in layers', () => {
  const graph = graphOf(LIB);

  it('puts every source file in a layer folder, or at the top as an entry', () => {
    const top = LIB.filter((file) => layerOf(file) === LAYERS.length);
    expect(top).toEqual(['lib/connect-parts.ts', 'lib/connect.ts', 'lib/connection-work.ts', 'lib/error-advice.ts', 'lib/global.ts', 'lib/index.ts', 'lib/testing/fake-backend.ts', 'lib/testing/fake-clock.ts', 'lib/testing/fake-faults.ts', 'lib/testing/fake-sip.ts', 'lib/testing/fake-tabs.ts', 'lib/testing/index.ts', 'lib/voice-browser.ts']);
  });

  it('has no import that points up a layer, dynamic ones included', () => {
    const withDynamic = new Map(LIB.map((file) => [file, importsOf(file).filter((edge) => LIB.includes(edge.to)).map((edge) => edge.to)]));
    expect(arrowsUp(withDynamic, layerOf)).toEqual([]);
  });

  it(`is at most ${MAX_LEVELS} files deep, counted along its static imports`, () => {
    expect(longestChain(graph).length).toBeLessThanOrEqual(MAX_LEVELS);
  });

  it('is read by checks that find an arrow up and measure the longest chain', () => {
    const rank = (file: string) => Number(file.slice(1));
    expect(arrowsUp(new Map([['a0', ['b1']], ['b1', ['c0']]]), rank)).toEqual(['a0 -> b1']);
    expect(arrowsUp(new Map([['a1', ['b0']], ['b0', []]]), rank)).toEqual([]);
    expect(longestChain(new Map([['a', ['b', 'd']], ['b', ['c']], ['c', []], ['d', []]]))).toEqual(['a', 'b', 'c']);
    expect(longestChain(new Map([['a', []]]))).toEqual(['a']);
    // One floor too many: a chain of files each importing the next, one longer than the ceiling, is caught.
    const names = Array.from({ length: MAX_LEVELS + 1 }, (_, at) => `f${at}`);
    expect(longestChain(new Map(names.map((name, at) => [name, names.slice(at + 1, at + 2)]))).length).toBeGreaterThan(MAX_LEVELS);
  });

  it('keeps core pure: no import of a package, nor of another layer; only the contract lies under it', () => {
    const core = LIB.filter((file) => layerOf(file) === 0);
    expect(core.length).toBeGreaterThan(10);
    expect(core.flatMap(importsOf).filter((edge) => !edge.to.startsWith('lib/core/') && !edge.to.startsWith('contract/'))).toEqual([]);
  });

  it('has one owner of the status: only the runtime holds the status store', () => {
    expect(importersOf('lib/runtime/status-store.ts')).toEqual(['lib/runtime/runtime.ts']);
  });

  it('keeps its machines pure: they import no other file of the helper but the shapes', () => {
    for (const machine of ['call-machine', 'connection-machine', 'media-machine', 'link-machine', 'offer-ring', 'settings-machine']) {
      expect(importsOf(`lib/core/machines/${machine}.ts`).map((edge) => edge.to)).toEqual(['lib/core/types.ts']);
    }
    // The call machine's half of the attempts, which comes with the SIP chunk, takes the rest of it and the shapes.
    expect(importsOf('lib/core/machines/call-attempts.ts').map((edge) => edge.to).sort()).toEqual(['lib/core/machines/call-machine.ts', 'lib/core/types.ts']);
  });

  it('loads SIP.js only in its SIP layer, and that layer only on connect() (a dynamic import of one entry)', () => {
    const sip = (name: string) => `lib/platform/web/sip/${name}.ts`;
    expect(importersOf('sip.js')).toEqual(['sip-adapter', 'sip-call', 'sip-digest', 'sip-flow', 'sip-offer-answer', 'sip-registration', 'sip-reliable-ringing', 'sip-session'].map(sip));
    // Only the chunk's entry reaches the link over SIP.js; the entry is loaded by nothing but the factory's import().
    expect(LIB.flatMap(importsOf).filter((edge) => edge.to === sip('sip-adapter')).map((edge) => edge.from)).toEqual(['lib/connect.ts']);
    const toEntry = LIB.flatMap(importsOf).filter((edge) => edge.to === 'lib/connect.ts');
    expect(toEntry.map((edge) => [edge.from, edge.dynamic])).toEqual([['lib/voice-browser.ts', true]]);
  });

  it('lets disconnect() and recover() load their own chunk, which reaches no SIP.js', () => {
    const chunk = 'lib/connection-work.ts';
    expect(LIB.flatMap(importsOf).filter((edge) => edge.to === chunk).map((edge) => [edge.from, edge.dynamic])).toEqual([['lib/voice-browser.ts', true]]);
    const reached = new Set([chunk]);
    for (const file of reached) for (const edge of importsOf(file)) if (!edge.dynamic) reached.add(edge.to);
    expect(reached.size).toBeGreaterThan(3);
    expect([...reached].filter((file) => file === 'sip.js' || file.startsWith('lib/platform/web/sip/'))).toEqual([]);
  });

  it('says what it exports by name: no `export *` anywhere in it', async () => {
    const { readFileSync } = await import('node:fs');
    expect(LIB.filter((file) => /^export \*/m.test(readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('lets the operations meet only in the loop\'s port types: no control file imports another, nor the loop\'s builder', () => {
    const controls = ['lib/api/calls/call-control.ts', 'lib/api/desk/desk-control.ts', 'lib/api/session/connection-control.ts'];
    for (const operations of controls) {
      expect(importsOf(operations).map((edge) => edge.to).filter((to) => controls.includes(to))).toEqual([]);
      expect(importsOf(operations).map((edge) => edge.to)).toContain('lib/runtime/runtime-types.ts');
      expect(importsOf(operations).map((edge) => edge.to)).not.toContain('lib/runtime/runtime.ts');
    }
  });
});
