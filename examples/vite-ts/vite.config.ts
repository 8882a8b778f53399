import { defineConfig } from 'vitest/config';

/**
 * The page is served by Vite; its `/voice` requests go to the server that mounts `@voice-browser/server`
 * (for instance examples/express, on port 3000), so the page and the proxy share one origin as in production.
 */
export default defineConfig({
  server: {
    host: '127.0.0.1',
    proxy: { '/voice': process.env.VOICE_PROXY_URL ?? 'http://127.0.0.1:3000' },
  },
  test: { environment: 'happy-dom' },
});
