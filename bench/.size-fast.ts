import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';
import { readFileSync } from 'node:fs';
import { sipChunkApart, sipChunkInline } from '../scripts/lib-chunks.js';
import { minifyShipped } from '../scripts/minify.js';
import { createSipTrim, LIB_BUILD_OPTIONS, type SipTrimPart } from '../scripts/sip-trim.js';

/**
 * Guards: what a page downloads (DESIGN.md: the script-tag bundle and the ES module's initial load), against
 * the floor to beat (sip.js SimpleUser, JsSIP). Each bundled the same way in the same run (esbuild, minified,
 * es2020), then gzip -9 and brotli -11.
 */

export interface SizeFigure {
  name: string;
  /** Files in the initial load: the entry and the chunks it imports statically. */
  files: number;
  minified: number;
  gzip: number;
  brotli: number;
}

/** How a bundle of ours is built: as shipped, or with one trim left out (`without`) to weigh what it saves. */
interface OursOptions {
  ours?: boolean;
  resolveDir?: string;
  /** A sip-trim part left out, or the renaming of SIP.js's private names (`mangleProps`). */
  without?: SipTrimPart | 'private names renamed';
}

/** LIB_BUILD_OPTIONS as shipped, or with the trim `without` left out. */
function oursBuild(format: 'iife' | 'esm', without: OursOptions['without']): BuildOptions {
  const trim = without === undefined || without === 'private names renamed' ? LIB_BUILD_OPTIONS.plugins ?? [] : [createSipTrim([without])];
  const { mangleProps, ...rest } = LIB_BUILD_OPTIONS;
  return { ...rest, ...(without === 'private names renamed' ? {} : { mangleProps }), plugins: [...trim, format === 'esm' ? sipChunkApart : sipChunkInline] };
}

async function bundle(name: string, contents: string, format: 'iife' | 'esm', options: OursOptions = {}): Promise<SizeFigure> {
  const result = await build({
    // Ours as we ship it (scripts/build-lib.ts); the peers as their users would bundle them.
    ...(options.ours ? oursBuild(format, options.without) : {}),
    stdin: { contents, resolveDir: options.resolveDir ?? process.cwd(), loader: 'ts', sourcefile: `${name}.ts` },
    bundle: true,
    minify: true,
    format,
    outdir: 'bench/.out',
    target: 'es2020',
    legalComments: 'none',
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const outputs = result.metafile.outputs;
  // The bundle's own entry is the one made from stdin; a lazily loaded chunk is an entry point of its own too.
  const entry = Object.keys(outputs).find((path) => outputs[path]?.entryPoint?.endsWith(`${name}.ts`)) ?? '';
  // The initial load: the entry and every chunk it imports statically, however deep; a chunk behind a dynamic
  // import() (SIP.js, loaded at connect()) is not part of it. Each file is fetched and compressed on its own.
  const initial = new Set<string>();
  const visit = (path: string) => {
    if (initial.has(path) || !outputs[path]) return;
    initial.add(path);
    for (const imported of outputs[path].imports) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entry);
  const bundled = result.outputFiles.filter((file) => [...initial].some((path) => file.path.endsWith(path)));
  if (bundled.length === 0) throw new Error(`bench: esbuild produced nothing for ${name}`);
  // Every bundle, ours and the peers', goes through the same last step as ours ships with (scripts/minify.ts).
  const files = await Promise.all(bundled.map(async (file) => ({ contents: Buffer.from(await minifyShipped(file.text, format)) })));
  const minified = files.reduce((sum, file) => sum + file.contents.length, 0);
  // An entry dropped as free of side effects would measure as a few bytes and pass any size target.
  if (minified < 1024) throw new Error(`bench: ${name} bundled to ${minified} bytes: its entry was dropped`);
  return {
    name,
    files: files.length,
    minified,
    gzip: files.reduce((sum, file) => sum + gzipSync(file.contents, { level: 9 }).length, 0),
    brotli: files.reduce((sum, file) => sum + brotliCompressSync(file.contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length, 0),
  };
}


const tag = await bundle('voice-browser script tag', readFileSync('lib/global.ts', 'utf8'), 'iife', { ours: true, resolveDir: 'lib' });
const esm = await bundle('voice-browser ES module entry', `export * from './lib/index.ts';`, 'esm', { ours: true });
console.log(`tag ${tag.gzip} ${tag.minified}  esm ${esm.gzip} ${esm.minified}`);
if (process.argv[2] === 'esm') {
  const r = await build({ ...oursBuild('esm', undefined), stdin: { contents: `export * from './lib/index.ts';`, resolveDir: process.cwd(), loader: 'ts', sourcefile: 'e.ts' }, bundle: true, minify: true, format: 'esm', outdir: '/tmp/sz2', target: 'es2020', write: false, metafile: true, logLevel: 'error' });
  for (const [name, out] of Object.entries(r.metafile.outputs)) {
    console.log('==', name, out.bytes);
    for (const [p, v] of Object.entries(out.inputs).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)) console.log(' ', v.bytesInOutput, p);
  }
}
