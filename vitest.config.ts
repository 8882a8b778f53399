import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** Unit tests: Node by default; library tests opt into happy-dom with a `@vitest-environment` comment. */
export default defineConfig({
  root: '.',
  // The demo imports the library by its package name; its unit tests run before the build, on the sources.
  resolve: {
    alias: [
      { find: /^voice-browser$/, replacement: fileURLToPath(new URL('lib/index.ts', import.meta.url)) },
      { find: /^voice-browser\/advice$/, replacement: fileURLToPath(new URL('lib/error-advice.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The packed packages and the built files are tested after the build (vitest.packages.config.ts).
    exclude: ['test/packages/**', 'test/**/*.built.test.ts', '**/node_modules/**'],
    environment: 'node',
    // Sized for a loaded machine (other suites beside this one on two cores): a test's real work (the compiler
    // reading every package, werift's handshakes, property runs) takes several times as long as idle. A green run
    // waits for none of it; only a hang waits this long to fail.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The same for a wait on a state the code reaches (`expect.poll`, whose own default gives up after a second):
    // a green run ends each wait as soon as the state is there.
    expect: { poll: { timeout: 30_000 } },
  },
});
