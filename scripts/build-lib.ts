import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { build, type BuildOptions } from 'esbuild';
import { LIB_BUILD_OPTIONS } from './sip-trim.js';

/**
 * Builds the library (DESIGN.md): the ES module with its SIP.js part split into a chunk that `connect()`
 * loads on demand, the testing kit (`voice-browser/testing`), the type declarations, and one minified
 * script that sets `window.VoiceBrowser`.
 */

const outdir = 'lib/dist';
rmSync(outdir, { recursive: true, force: true });

const common: BuildOptions = { ...LIB_BUILD_OPTIONS, logLevel: 'warning' };

await build({
  ...common,
  // The advice words are an entry of their own (`voice-browser/advice`): a page that shows its own words never loads them.
  entryPoints: { index: 'lib/index.ts', advice: 'lib/error-advice.ts', testing: 'lib/testing/index.ts' },
  outdir: `${outdir}/esm`,
  format: 'esm',
  splitting: true,
  // The testing kit runs in Node (its fake clock flushes with Node's setImmediate): its import stays one.
  external: ['node:*'],
  chunkNames: 'chunks/[name]-[hash]',
});

await build({
  ...common,
  entryPoints: ['lib/global.ts'],
  outfile: `${outdir}/voice-browser.min.js`,
  format: 'iife',
});

execFileSync('npx', ['tsc', '-p', 'tsconfig.lib.json'], { stdio: 'inherit' });
// The testing kit's declarations: the same output folder, with Node's types for its fake clock.
execFileSync('npx', ['tsc', '-p', 'tsconfig.testing.json'], { stdio: 'inherit' });
console.log(`library built in ${outdir}`);
