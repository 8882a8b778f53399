import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createVoiceProxy } from '@voice-browser/server';
import express from 'express';

/**
 * An Express app with its own login that puts phone calls into its page: `@voice-browser/server` mounted under
 * `/voice` holds the voice service's API key and answers only a logged-in user; the page is plain HTML with
 * voice-browser's script-tag file.
 *
 * The login is the app's own and deliberately small (a name, a random session token in an HttpOnly cookie,
 * sessions in memory): put your real one in its place. What the proxy needs from it is `authenticate`.
 */

const SESSION_COOKIE = 'example_session';

/** The session token a `Cookie` header carries, or undefined. */
const tokenFrom = (cookieHeader) => new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([A-Za-z0-9_-]+)`).exec(cookieHeader ?? '')?.[1];

/** The user whose session token the request's cookie carries, or null. */
function userFrom(sessions, cookieHeader) {
  const token = tokenFrom(cookieHeader);
  return (token && sessions.get(token)) || null;
}

/**
 * @param {{ voiceBaseUrl: string, voiceApiKey: string }} options the voice service's base URL (ending in `/api`) and the key
 * @returns {import('express').Express}
 */
export function createApp({ voiceBaseUrl, voiceApiKey }) {
  /** @type {Map<string, { id: string, name: string }>} */
  const sessions = new Map();
  const voice = createVoiceProxy({
    baseUrl: voiceBaseUrl,
    apiKey: voiceApiKey,
    // A web Request: read the same cookie the app's own routes read.
    authenticate: async (request) => userFrom(sessions, request.headers.get('cookie')),
  });

  const app = express();
  app.disable('x-powered-by');
  // Express strips '/voice' before the proxy sees the request; the proxy routes from what is left.
  app.use('/voice', getRequestListener(voice));

  app.post('/login', express.urlencoded({ extended: false }), (req, res) => {
    const name = String(req.body?.name ?? '').trim();
    if (!/^[\p{L}\p{N} ._-]{1,40}$/u.test(name)) return res.status(400).send('A name of 1 to 40 letters, digits, spaces, dots, dashes.');
    const token = randomBytes(32).toString('base64url');
    sessions.set(token, { id: name.toLowerCase(), name });
    res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', path: '/' });
    res.redirect(303, '/');
  });
  app.post('/logout', async (req, res) => {
    const user = userFrom(sessions, req.headers.cookie);
    // End the user's voice session and call; log out anyway when that cannot be proven.
    if (user) await voice.revokeSessions(user).catch((error) => console.error('logout: voice cleanup', error.code ?? error));
    const token = tokenFrom(req.headers.cookie);
    if (token) sessions.delete(token);
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.redirect(303, '/');
  });
  app.get('/me', (req, res) => res.json({ user: userFrom(sessions, req.headers.cookie) }));

  app.get('/voice-browser.min.js', (req, res) => res.sendFile(fileURLToPath(import.meta.resolve('voice-browser/voice-browser.min.js'))));
  app.use(express.static(fileURLToPath(new URL('public', import.meta.url))));
  return app;
}

// `npm start`: VOICE_BASE_URL and VOICE_API_KEY name the service (`npm run simulator` prints both).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { VOICE_BASE_URL, VOICE_API_KEY, PORT = '3000', HOST = '127.0.0.1' } = process.env;
  if (!VOICE_BASE_URL || !VOICE_API_KEY) {
    console.error('Set VOICE_BASE_URL and VOICE_API_KEY (npm run simulator prints both).');
    process.exit(1);
  }
  createApp({ voiceBaseUrl: VOICE_BASE_URL, voiceApiKey: VOICE_API_KEY }).listen(Number(PORT), HOST, () => console.log(`http://${HOST}:${PORT}`));
}
