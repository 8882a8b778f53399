import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { sipChunkApart, sipChunkInline } from './lib-chunks.js';
import { minifyShipped } from './minify.js';
import { LIB_BUILD_OPTIONS } from './sip-trim.js';

/**
 * Builds the library: the ES module, whose SIP.js part is a file of its own (`sip-adapter.js`) that `connect()`
 * loads on demand, and so is the connection's cleanup (`connection-work.js`), which disconnect() and recover()
 * load when no connect() has loaded the SIP part; the testing kit (`voice-browser/testing`), the type
 * declarations, and one minified script that sets `window.VoiceBrowser`.
 */

const outdir = 'lib/dist';
rmSync(outdir, { recursive: true, force: true });

const common: BuildOptions = { ...LIB_BUILD_OPTIONS, logLevel: 'warning' };

/** Bundles with esbuild, then writes each file as terser leaves it (the shipped minifier). */
async function buildShipped(options: BuildOptions & { format: 'esm' | 'iife' }): Promise<void> {
  const result = await build({ ...options, write: false });
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, await minifyShipped(file.text, options.format));
  }
}

// Each entry is one file that shares no module with another (the lazy chunks' plugin says why), and the chunks beside them.
const entries = {
  index: 'lib/index.ts',
  // The advice words are an entry of their own (`voice-browser/advice`): a page that shows its own words never loads them.
  advice: 'lib/error-advice.ts',
  testing: 'lib/testing/index.ts',
  // The SIP chunk keeps its published name; its one entry says what loads at connect().
  'sip-adapter': 'lib/connect.ts',
  // What disconnect() and recover() load before any connect(): the connection's work, without SIP.js.
  'connection-work': 'lib/connection-work.ts',
};
for (const [name, entry] of Object.entries(entries)) {
  await buildShipped({
    ...common,
    plugins: [...(common.plugins ?? []), sipChunkApart],
    entryPoints: { [name]: entry },
    outdir: `${outdir}/esm`,
    format: 'esm',
    // The testing kit runs in Node (its fake clock flushes with Node's setImmediate): its import stays one.
    external: ['node:*'],
  });
}

await buildShipped({
  ...common,
  plugins: [...(common.plugins ?? []), sipChunkInline],
  entryPoints: ['lib/global.ts'],
  outfile: `${outdir}/voice-browser.min.js`,
  format: 'iife',
});

execFileSync('npx', ['tsc', '-p', 'tsconfig.lib.json'], { stdio: 'inherit' });
// The testing kit's declarations: the same output folder, with Node's types for its fake clock.
execFileSync('npx', ['tsc', '-p', 'tsconfig.testing.json'], { stdio: 'inherit' });
// The declarations come out as the repository lays them out (lib beside contract, whose shapes lib re-exports):
// lib's go where the package names them, contract's one level up, so their relative imports still meet.
renameSync(`${outdir}/declarations/lib`, `${outdir}/types`);
renameSync(`${outdir}/declarations/contract`, `${outdir}/contract`);
rmSync(`${outdir}/declarations`, { recursive: true });
