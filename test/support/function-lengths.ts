import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from './sources.js';

/**
 * The functions of our sources and the lines their bodies take, read with TypeScript's own parser, so a test can
 * hold the house's limit on a function's length (STYLE: a function past about 60 lines wants splitting).
 */

/** One function of a source file and how long its body is. */
export interface FunctionLength {
  /** The file, relative to the repository, and the function's name: `lib/runtime/runtime.ts createRuntime`. */
  name: string;
  /** Lines from the body's first character to its last, both counted (nested functions included). */
  lines: number;
}

/**
 * What a function is called: its own name, else the variable, property or JSX attribute it is given to, else
 * what it is handed to (`app.post`), else its line.
 */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const own = node.name?.getText(source);
  if (own) return own;
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText(source);
  if (ts.isJsxExpression(parent) && ts.isJsxAttribute(parent.parent)) return parent.parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `${parent.expression.getText(source)} callback`;
  return `(anonymous, line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1})`;
}

/** Every function (declarations, methods, arrows, accessors, constructors) of a source text, with its length. */
export function functionLengthsOf(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body as ts.Node;
      const first = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(body.getEnd()).line;
      found.push({ name: `${file} ${nameOf(node, source)}`, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions of `file` (relative to the repository) with their lengths. */
export function functionLengths(file: string): FunctionLength[] {
  return functionLengthsOf(file, readFileSync(join(ROOT, file), 'utf8'));
}

/** What breaks the limit: a function past it and not allowed, one grown past its allowance, one allowed for nothing. */
export interface LengthBreaches {
  /** `name: lines (limit)` of each function longer than the limit and not in the allowance. */
  unlisted: string[];
  /** `name: lines (allowed)` of each allowed function now longer than its allowance. */
  grown: string[];
  /** Names in the allowance of functions no longer past the limit (or gone): they leave the list. */
  shortened: string[];
}

/**
 * Holds `lengths` to `limit`, but for `allowance` (a function's name to the most lines it may still take); a name
 * that occurs twice in one file is held at its longest.
 */
export function lengthBreaches(lengths: readonly FunctionLength[], limit: number, allowance: Readonly<Record<string, number>>): LengthBreaches {
  const longest = new Map<string, number>();
  for (const { name, lines } of lengths) longest.set(name, Math.max(lines, longest.get(name) ?? 0));
  const over = [...longest].filter(([, lines]) => lines > limit).map(([name, lines]) => ({ name, lines, allowed: allowance[name] }));
  return {
    unlisted: over.filter(({ allowed }) => allowed === undefined).map(({ name, lines }) => `${name}: ${lines} (${limit})`),
    grown: over.filter(({ lines, allowed }) => allowed !== undefined && lines > allowed).map(({ name, lines, allowed }) => `${name}: ${lines} (${allowed})`),
    shortened: Object.keys(allowance).filter((name) => (longest.get(name) ?? 0) <= limit),
  };
}
