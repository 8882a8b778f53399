import { defineConfig } from 'vitest/config';

/** Unit tests: Node by default; library tests opt into happy-dom with a `@vitest-environment` comment. */
export default defineConfig({
  root: '.',
  test: {
    include: ['test/**/*.test.ts'],
    // The packed packages are tested after the build (vitest.packages.config.ts).
    exclude: ['test/packages/**', '**/node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
