import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The documents name only paths the repository has: every repository path written in backticks in the README,
 * the folders' READMEs and docs/ (`test/lib/core/...`, `simulator/sip/edge/`, `scripts/...`) exists, so a file
 * or folder that moves cannot leave a sentence pointing nowhere, and a test named by its file name alone is one
 * the repository has, in whichever folder. Build and run outputs (`dist/`, `bench/results/`, `e2e/artifacts/`),
 * globs and placeholders are not paths of the repository and are let be.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  ...['lib', 'server-proxy', 'simulator', 'demo', 'contract'].map((folder) => `${folder}/README.md`).filter((doc) => existsSync(join(ROOT, doc))),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** The repository's top folders a path in the documents starts with. */
const TOP = ['lib', 'server-proxy', 'simulator', 'demo', 'contract', 'test', 'e2e', 'bench', 'scripts', 'examples', 'patches', 'docs'];

/** Each backticked repository path of a document (fenced code left out), without a trailing `:line` or `#anchor`. */
function repositoryPaths(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([^`\s]+)`/g)]
    .map((match) => (match[1] ?? '').replace(/[:#].*$/, ''))
    .filter((path) => TOP.some((top) => path.startsWith(`${top}/`)))
    .filter((path) => !/[*<>{}$]|(^|\/)(dist|results|artifacts)(\/|$)|\.\.\./.test(path));
}

/** Each test or spec a document names by its file name alone (`queue-routes.test.ts`), fenced code left out. */
function testNames(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([\w-]+\.(?:test|spec)\.tsx?)`/g)].map((match) => match[1] ?? '');
}

/** The file names of every unit test and e2e spec of the repository. */
const TESTS = new Set(
  ['test', 'e2e'].flatMap((folder) => readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' }).map((file) => basename(file))),
);

describe('the documents', () => {
  it('name only repository paths that exist', () => {
    const missing = DOCS.flatMap((doc) =>
      repositoryPaths(readFileSync(join(ROOT, doc), 'utf8'))
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${doc}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('name only tests and specs that exist, wherever their folder', () => {
    const missing = DOCS.flatMap((doc) =>
      testNames(readFileSync(join(ROOT, doc), 'utf8'))
        .filter((name) => !TESTS.has(name))
        .map((name) => `${doc}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('are read by a check that finds a path in backticks and leaves code, outputs and placeholders be', () => {
    const text = 'See `lib/core/` and `test/lib/x.test.ts:12`, not `simulator/dist/main.js`, `docs/*.md` or `npm test`.\n```sh\ncat `e2e/y.ts`\n```';
    expect(repositoryPaths(text)).toEqual(['lib/core/', 'test/lib/x.test.ts']);
    expect(testNames('`queue-routes.test.ts` and `call.spec.ts`, not `routes.ts`')).toEqual(['queue-routes.test.ts', 'call.spec.ts']);
  });
});
