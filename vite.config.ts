import { defineConfig } from 'vite';

/** Builds the demo page (demo/) into dist/demo, which the proxy serves. */
export default defineConfig({
  root: 'demo',
  build: { outDir: '../dist/demo', emptyOutDir: true, sourcemap: true },
  // Preact's JSX runtime, without a framework plugin: Vite's own transform does it.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  server: { host: '127.0.0.1' },
});
