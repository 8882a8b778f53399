import { defineConfig } from 'vitest/config';

/** What integrators install (test/packages/): runs after `npm run build`, on the packed tarballs. */
export default defineConfig({
  root: '.',
  test: {
    include: ['test/packages/**/*.test.ts'],
    environment: 'node',
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
