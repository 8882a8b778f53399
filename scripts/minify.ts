import { minify } from 'terser';

/**
 * The last step of every shipped bundle (the library's build) and of every bundle the size bench weighs
 * (ours and the peers alike): esbuild bundles, trims SIP.js and minifies; terser then compresses
 * further (three passes, dead code dropped, names mangled; what that saves is in docs/bench.md). No unsafe
 * transform is turned on; an ES module keeps its export names.
 */
export async function minifyShipped(code: string, format: 'esm' | 'iife'): Promise<string> {
  const result = await minify(code, {
    ecma: 2020,
    module: format === 'esm',
    compress: { passes: 3 },
    mangle: true,
    format: { comments: false },
  });
  if (result.code === undefined) throw new Error('terser produced no code');
  return result.code;
}
