import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

/**
 * Where the SIP chunk goes in each build. The helper loads its one entry with `import('./connect.js')` (connect(),
 * startCall(), preflight()): SIP.js, the link, and the operations that only act with one. Built, the chunk keeps
 * its published name, `sip-adapter.js`.
 */

const DYNAMIC_IMPORT = "import('./connect.js')";

/**
 * ES module builds: the SIP chunk is left a file of its own beside the entry (`./sip-adapter.js`, built alone by
 * scripts/build-lib.ts), so the two share no module. esbuild's splitting would move what both use (the error
 * class, a state helper) into a third file, which the entry must fetch before anything runs; built apart, the SIP
 * chunk carries its own copy of those few lines instead (`VoiceBrowserError`'s `instanceof` checks the shape, so
 * an error from either copy passes it).
 */
export const sipChunkApart: Plugin = {
  name: 'sip-chunk-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/connect\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './sip-adapter.js', external: true } : undefined));
  },
};

/**
 * Script-tag build: one file whatever happens, so the SIP chunk is imported statically. Left dynamic, esbuild
 * would wrap every module it reaches (all of SIP.js) in a lazy initializer, for nothing.
 */
export const sipChunkInline: Plugin = {
  name: 'sip-chunk-inline',
  setup(build) {
    let inlined = 0;
    build.onStart(() => {
      inlined = 0;
    });
    build.onLoad({ filter: /[\\/]lib[\\/][^\\/]+\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(DYNAMIC_IMPORT)) return undefined;
      inlined++;
      return { contents: `import * as sipChunk from './connect.js';\n${source.replaceAll(DYNAMIC_IMPORT, 'Promise.resolve(sipChunk)')}`, loader: 'ts' };
    });
    // A renamed or reworded import would silently leave the chunk lazy again: say so instead.
    build.onEnd((result) => {
      if (result.errors.length === 0 && inlined === 0) throw new Error(`sip-chunk-inline: no ${DYNAMIC_IMPORT} found to inline`);
    });
  },
};
