import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Application, LogLevel } from 'typedoc';

/**
 * `npm run docs:api`: the API reference of every package entry, from the TSDoc in the sources, written as
 * Markdown to docs/api/ (one page per export, readable where the repository is browsed). TypeDoc with its
 * Markdown plugin; a build test fails when an export has no page.
 */

const ROOT = resolve(import.meta.dirname, '..');

/** Each entry an integrator imports, by the source that defines it (its `@module` tag names the import). */
export const API_ENTRIES = ['lib/index.ts', 'lib/error-advice.ts', 'lib/testing/index.ts', 'server-proxy/index.ts', 'simulator/index.ts', 'simulator/playwright.ts'];

export const API_DOCS_DIR = resolve(ROOT, 'docs/api');

/** The entries whose source exists yet; one written meanwhile is left out, and said so. */
const present = API_ENTRIES.filter((entry) => {
  if (existsSync(resolve(ROOT, entry))) return true;
  console.log(`docs:api: skipping ${entry} (no such file yet)`);
  return false;
});

const app = await Application.bootstrapWithPlugins({
  entryPoints: present.map((entry) => resolve(ROOT, entry)),
  plugin: ['typedoc-plugin-markdown'],
  tsconfig: resolve(ROOT, 'tsconfig.json'),
  out: API_DOCS_DIR,
  readme: 'none',
  name: 'voice-browser API',
  excludeInternal: true,
  excludePrivate: true,
  // Source links would point at a commit of a remote this repository may not have.
  disableSources: true,
  logLevel: LogLevel.Warn,
  treatWarningsAsErrors: true,
});
const project = await app.convert();
if (!project) throw new Error('docs:api: TypeDoc could not read the entries (see above)');
rmSync(API_DOCS_DIR, { recursive: true, force: true });
await app.generateOutputs(project);
console.log(`docs:api: written to ${API_DOCS_DIR}`);
