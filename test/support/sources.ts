import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root, which the paths {@link sourcesUnder} returns are relative to. */
export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Every `.ts` and `.tsx` source under the repository's `folder`, relative to the repository and sorted: not a
 * package's build output, not installed packages, and not a test unless `tests` asks for them too.
 */
export function sourcesUnder(folder: string, { tests = false } = {}): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name) && (tests || !/\.(test|spec)\.tsx?$/.test(name)) && !/(^|\/)(dist|node_modules)\//.test(name))
    .map((name) => join(folder, name))
    .sort();
}
