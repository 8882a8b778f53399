import { defineConfig } from 'vitest/config';

/**
 * What the build makes: the packed packages as integrators install them (test/packages/), and the built files a
 * test walks (`*.built.test.ts`, beside the code they are about). Runs after `npm run build`.
 */
export default defineConfig({
  root: '.',
  test: {
    include: ['test/packages/**/*.test.ts', 'test/**/*.built.test.ts'],
    environment: 'node',
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
