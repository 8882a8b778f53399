import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of our sources (lib/, contract/, server-proxy/, simulator/, scripts/), read with
 * TypeScript's own parser, so the tests can hold the house's one direction: who may import whom, and no
 * cycle (docs/architecture.md).
 *
 * @remarks
 * Every import counts, `import type` included: a type is coupling too. A dynamic `import()` is told apart,
 * because `npm start` loads the simulator with one.
 */

const ROOT = resolve(import.meta.dirname, '../..');

export interface SourceImport {
  /** The importing file, relative to the repository: `demo/server/main.ts`. */
  from: string;
  /** Our file it names (`simulator/index.ts`), or the package (`werift`, `node:http`). */
  to: string;
  dynamic: boolean;
}

/** Every `.ts` file under the repository's `folder`, relative to the repository. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    // A package's build output and installed packages are not our sources.
    .filter((name) => name.endsWith('.ts') && !/(^|\/)(dist|node_modules)\//.test(name))
    .map((name) => join(folder, name))
    .sort();
}

function specifiersOf(file: string): Array<{ specifier: string; dynamic: boolean }> {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ specifier: string; dynamic: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, dynamic: false });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      // A computed specifier could name anything: refuse it rather than miss an edge.
      if (!argument || !ts.isStringLiteral(argument)) throw new Error(`${file}: import() of a computed specifier`);
      found.push({ specifier: argument.text, dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, dynamic: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The imports of `file` (relative to the repository); `./x.js` resolves to `x.ts`, as tsx and tsc do. */
export function importsOf(file: string): SourceImport[] {
  return specifiersOf(file).map(({ specifier, dynamic }) => ({
    from: file,
    to: specifier.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts') : specifier,
    dynamic,
  }));
}

/**
 * Every file and package `entries` load at start, following static imports only (a dynamic `import()` runs
 * later, if ever).
 */
export function staticClosure(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.ts')) continue;
    for (const edge of importsOf(file)) if (!edge.dynamic) queue.push(edge.to);
  }
  return seen;
}
