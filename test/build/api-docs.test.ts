import { readdirSync, readFileSync } from 'node:fs';
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

/** The names an entry exports, values and types alike, as the compiler sees them. */
function exportsOf(program: ts.Program, entry: string): string[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(resolve(ROOT, entry));
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`no module symbol for ${entry}`);
  return checker.getExportsOfModule(symbol).map((exported) => exported.getName());
}

/** Every page of the reference, by name without `.md`. */
const pages = new Set(
  readdirSync(join(ROOT, 'docs/api'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => basename(file, '.md')),
);

describe('the API reference (docs/api)', () => {
  it('documents the same entries as scripts/api-docs.ts', () => {
    const script = readFileSync(join(ROOT, 'scripts/api-docs.ts'), 'utf8');
    for (const entry of ENTRIES) expect(script).toContain(`'${entry}'`);
  });

  it('has a page for every export of every entry (run `npm run docs:api` after adding one)', () => {
    const program = ts.createProgram(
      ENTRIES.map((entry) => resolve(ROOT, entry)),
      { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022, noEmit: true, skipLibCheck: true, types: ['node'] },
    );
    const missing = ENTRIES.flatMap((entry) => exportsOf(program, entry).filter((name) => !pages.has(name)).map((name) => `${entry}: ${name}`));
    expect(missing).toEqual([]);
    expect(pages.size).toBeGreaterThan(50);
  });
});
