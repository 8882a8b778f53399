import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The API reference in docs/api/ (scripts/api-docs.ts, TypeDoc) has a page for every export of every package
 * entry, so a new export without a regenerated reference fails here.
 */

const ROOT = resolve(import.meta.dirname, '../..');
/** The entries scripts/api-docs.ts documents; kept in step with its list by the test below. */
const ENTRIES = ['lib/index.ts', 'lib/error-advice.ts', 'lib/testing/index.ts', 'server-proxy/index.ts', 'simulator/index.ts', 'simulator/playwright.ts'];
/** The entries whose source exists, as the script documents them (it skips one not written yet). */
const PRESENT = ENTRIES.filter((entry) => existsSync(resolve(ROOT, entry)));

/** The names an entry exports, values and types alike, as the compiler sees them. */
function exportsOf(program: ts.Program, entry: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(resolve(ROOT, entry));
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`no module symbol for ${entry}`);
  return checker.getExportsOfModule(symbol).map((exported) => exported.getName());
}

/** Where each entry's pages go: its import name, which the entry's `@module` tag gives TypeDoc. */
const MODULE_DIRS: Record<string, string> = {
  'lib/index.ts': 'voice-browser',
  'lib/error-advice.ts': 'voice-browser/advice',
  'lib/testing/index.ts': 'voice-browser/testing',
  'server-proxy/index.ts': '@voice-browser/server',
  'simulator/index.ts': '@voice-browser/simulator',
  'simulator/playwright.ts': '@voice-browser/simulator/playwright',
};

/**
 * The names an entry's folder documents: a page each (`classes/X.md`, `functions/X.md`, ...), and the
 * re-exports of another entry's names, which TypeDoc gives an anchor on the entry's own page (`### X`).
 */
function pagesOf(entry: string): Set<string> {
  const dir = join(ROOT, 'docs/api', MODULE_DIRS[entry] ?? entry);
  if (!existsSync(dir)) return new Set();
  const pages = readdirSync(dir, { withFileTypes: true })
    .filter((kind) => kind.isDirectory())
    .flatMap((kind) => readdirSync(join(dir, kind.name)).filter((file) => file.endsWith('.md')).map((file) => basename(file, '.md')));
  const index = join(dir, 'README.md');
  const reexports = existsSync(index) ? [...readFileSync(index, 'utf8').matchAll(/^### (\S+)\n\nRe-exports \[/gm)].map((match) => match[1] ?? '') : [];
  return new Set([...pages, ...reexports]);
}

describe('the API reference (docs/api)', () => {
  it('documents the same entries as scripts/api-docs.ts', () => {
    const script = readFileSync(join(ROOT, 'scripts/api-docs.ts'), 'utf8');
    for (const entry of ENTRIES) expect(script).toContain(`'${entry}'`);
    expect(Object.keys(MODULE_DIRS).sort()).toEqual([...ENTRIES].sort());
  });

  it('has a page for every export of every entry (run `npm run docs:api` after adding one)', () => {
    const program = ts.createProgram(
      PRESENT.map((entry) => resolve(ROOT, entry)),
      { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, noEmit: true, skipLibCheck: true, types: ['node'] },
    );
    const missing = PRESENT.flatMap((entry) => {
      const pages = pagesOf(entry);
      return exportsOf(program, entry).filter((name) => !pages.has(name)).map((name) => `${entry}: ${name}`);
    });
    expect(missing, 'exports without a page in docs/api: run `npm run docs:api`').toEqual([]);
    expect(PRESENT.reduce((count, entry) => count + pagesOf(entry).size, 0)).toBeGreaterThan(50);
  });
});
