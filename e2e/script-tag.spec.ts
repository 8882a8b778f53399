import { expect, test } from './fixtures.js';

/**
 * The script-tag build is one self-contained file: loaded alone, `window.VoiceBrowser` connects for real
 * (SIP.js inlined, no chunk to fetch) and disconnects cleanly.
 */
test('window.VoiceBrowser from the minified script connects and disconnects', async ({ page }) => {
  const login = await page.request.post('/auth/login', { data: { username: 'e2e-script-tag' } });
  expect(login.status()).toBe(200);
  await page.goto('/auth/me');
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.addScriptTag({ url: '/lib/voice-browser.min.js' });

  const result = await page.evaluate(async () => {
    const api = window.VoiceBrowser;
    const seen: string[] = [];
    const voice = api.createVoiceBrowser({ backend: api.createFetchBackend(), onStatus: (s) => seen.push(s.connection) });
    await voice.connect();
    const ready = voice.status();
    await voice.disconnect();
    return { exports: Object.keys(api).sort(), ready: ready.connection, session: ready.session?.id ?? '', after: voice.status().connection, seen };
  });

  expect(result.exports).toEqual(['VoiceBrowserError', 'createFetchBackend', 'createVoiceBrowser', 'isVoiceBrowserError']);
  expect(result.ready).toBe('ready');
  expect(result.session).toMatch(/^bs_/);
  expect(result.after).toBe('disconnected');
  const transitions = result.seen.filter((connection, i) => connection !== result.seen[i - 1]);
  expect(transitions).toEqual(['connecting', 'ready', 'disconnecting', 'disconnected']);
  // Self-contained: nothing but the script itself and the proxy's routes was fetched.
  expect(requested.filter((path) => path.endsWith('.js'))).toEqual(['/lib/voice-browser.min.js']);
});
