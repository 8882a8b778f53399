import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { sipChunkApart } from '../scripts/lib-chunks.js';
import { minifyShipped } from '../scripts/minify.js';
import { LIB_BUILD_OPTIONS } from '../scripts/sip-trim.js';
const r = await build({ ...LIB_BUILD_OPTIONS, plugins: [...(LIB_BUILD_OPTIONS.plugins ?? []), sipChunkApart], entryPoints: ['lib/sip-adapter.ts'], format: 'esm', write: false, outdir: '/tmp/sz3', logLevel: 'error' });
const code = await minifyShipped(r.outputFiles[0]!.text, 'esm');
console.log('sip chunk', gzipSync(Buffer.from(code), { level: 9 }).length, code.length);
