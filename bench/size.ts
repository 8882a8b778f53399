import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';
import { readFileSync } from 'node:fs';
import { sipChunkApart, sipChunkInline } from '../scripts/lib-chunks.js';
import { minifyShipped } from '../scripts/minify.js';
import { createSipTrim, LIB_BUILD_OPTIONS, type SipTrimPart } from '../scripts/sip-trim.js';
import { kb, type Row } from './stats.js';

/**
 * Guards: what a page downloads (docs/bench.md: the script-tag bundle and the ES module's initial load), against
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
    // Ours as we ship it (as `npm run build:lib` bundles it); the peers as their users would bundle them.
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
  // Every bundle, ours and the peers', goes through the same last step as ours ships with ({@link minifyShipped}).
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

export async function measureSize(): Promise<{ figures: SizeFigure[]; rows: Row[] }> {
  const figures = [
    // The entry's own text: imported, it would be dropped, as lib/package.json says only the built file has side effects.
    await bundle('voice-browser script tag', readFileSync('lib/global.ts', 'utf8'), 'iife', { ours: true, resolveDir: 'lib' }),
    await bundle('voice-browser ES module entry', `export * from './lib/index.ts';`, 'esm', { ours: true }),
    await bundle('sip.js SimpleUser', `import { SimpleUser } from 'sip.js/lib/platform/web/simple-user/index.js'; (globalThis as Record<string, unknown>).SimpleUser = SimpleUser;`, 'iife'),
    await bundle('jssip', `import JsSIP from 'jssip'; (globalThis as Record<string, unknown>).JsSIP = JsSIP;`, 'iife'),
  ];
  const [tag, esm, simpleUser, jssip] = figures as [SizeFigure, SizeFigure, SizeFigure, SizeFigure];
  const describe = (f: SizeFigure) => `${kb(f.gzip)} gzip, ${kb(f.brotli)} br, ${kb(f.minified)} min${f.files > 1 ? ` in ${f.files} files` : ''}`;
  const rows: Row[] = [
    { figure: 'script-tag bundle', value: describe(tag), target: '<= 56 KB gzip', met: tag.gzip <= 56 * 1024 },
    { figure: 'ES module initial load', value: describe(esm), target: '<= 8.5 KB gzip', met: esm.gzip <= 8.5 * 1024 },
    // For comparison (docs/bench.md): a bare SIP stack, where ours carries the helper's polling, recovery and network features too.
    { figure: 'peer: sip.js SimpleUser', value: `${describe(simpleUser)} (ours ${tag.gzip - simpleUser.gzip >= 0 ? '+' : ''}${tag.gzip - simpleUser.gzip} bytes gzip)`, target: 'for comparison', met: true },
    { figure: 'peer: jssip', value: `${describe(jssip)} (ours ${tag.gzip - jssip.gzip >= 0 ? '+' : ''}${tag.gzip - jssip.gzip} bytes gzip)`, target: 'for comparison', met: true },
  ];
  return { figures, rows: [...rows, ...(await trimSavings(tag.gzip))] };
}

/**
 * What each trim of the shipped build saves on the script tag (the SIP.js trims, and the renaming of SIP.js's
 * private names): the tag built with that trim left out, against the tag as shipped. A trim that saves nothing
 * goes: every e2e spec runs the built files, so each trim is exercised; this shows what it buys.
 */
async function trimSavings(shipped: number): Promise<Row[]> {
  const parts: Array<SipTrimPart | 'private names renamed'> = ['client stubs', 'dead log lines', 'grammar rules', 'private names renamed'];
  const rows: Row[] = [];
  for (const part of parts) {
    const without = await bundle(`script tag without ${part}`, readFileSync('lib/global.ts', 'utf8'), 'iife', { ours: true, resolveDir: 'lib', without: part });
    const saves = without.gzip - shipped;
    rows.push({ figure: `trim: ${part}`, value: `saves ${saves} B gzip on the script tag`, target: '> 0 B', met: saves > 0 });
  }
  return rows;
}
