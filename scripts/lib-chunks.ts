import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/**
 * Where the helper's lazy chunks go in each build. The helper loads each by its one entry: `import('./connect.js')`
 * (connect(), startCall(), preflight(): SIP.js, the link, and the operations that only act with one), and
 * `import('./connection-work.js')` (disconnect() and recover() before any connect(): the connection's work alone,
 * without SIP.js). Built, each keeps its published name: the SIP chunk is `sip-adapter.js`.
 */

/** Each lazy chunk's entry, as the helper imports it, and the file it is built to. */
export const LAZY_CHUNKS: Readonly<Record<string, string>> = { './connect.js': './sip-adapter.js', './connection-work.js': './connection-work.js' };

const importOf = (entry: string) => `import('${entry}')`;

/**
 * ES module builds: each chunk is left a file of its own beside the entry (built alone by the lib build), so that
 * the files share no module. esbuild's splitting would move what several use (the error class, a state helper)
 * into a further file, which the entry must fetch before anything runs; built apart, a chunk carries its own copy
 * of those few lines instead (`VoiceBrowserError`'s `instanceof` checks the shape, so an error from either copy
 * passes it).
 */
export const sipChunkApart: Plugin = {
  name: 'lazy-chunks-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/[\w-]+\.js$/ }, (args) => {
      const built = LAZY_CHUNKS[args.path];
      return args.kind === 'dynamic-import' && built ? { path: built, external: true } : undefined;
    });
  },
};

/**
 * Script-tag build: one file whatever happens, so each chunk is imported statically. Left dynamic, esbuild would
 * wrap every module it reaches (all of SIP.js) in a lazy initializer, for nothing.
 */
export const sipChunkInline: Plugin = {
  name: 'lazy-chunks-inline',
  setup(build) {
    const inlined = new Set<string>();
    build.onStart(() => inlined.clear());
    build.onLoad({ filter: /[\\/]lib[\\/][^\\/]+\.ts$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      const found = Object.keys(LAZY_CHUNKS).filter((entry) => source.includes(importOf(entry)));
      if (found.length === 0) return undefined;
      found.forEach((entry, at) => {
        inlined.add(entry);
        source = `import * as chunk${at} from '${entry}';\n${source.replaceAll(importOf(entry), `Promise.resolve(chunk${at})`)}`;
      });
      return { contents: source, loader: 'ts' };
    });
    // A renamed or reworded import would silently leave a chunk lazy again: say so instead.
    build.onEnd((result) => {
      const missing = Object.keys(LAZY_CHUNKS).filter((entry) => !inlined.has(entry));
      if (result.errors.length === 0 && missing.length) throw new Error(`lazy-chunks-inline: no ${missing.map(importOf).join(', ')} found to inline`);
    });
  },
};
