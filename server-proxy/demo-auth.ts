import { Hono } from 'hono';
import { deleteCookie, setSignedCookie } from 'hono/cookie';
import { parseSigned } from 'hono/utils/cookie';
import { HttpError, noStore, onHttpError } from './http-error.js';
import type { ProxyUser, VoiceProxy } from './proxy.js';

/**
 * The demo's stand-in for an integrator's login: a username in a signed, HttpOnly, SameSite=Strict cookie.
 * Real apps pass their own `authenticate` to `createVoiceProxy` instead.
 */

const COOKIE = 'vb_user';
const USERNAME = /^[A-Za-z0-9._-]{1,64}$/;

export interface DemoAuth {
  /** Routes `/auth/login`, `/auth/logout`, `/auth/me`. */
  app: Hono;
  authenticate(request: Request): Promise<ProxyUser | null>;
}

export function createDemoAuth(options: { secret: string; proxy: () => VoiceProxy }): DemoAuth {
  const authenticate = async (request: Request): Promise<ProxyUser | null> => {
    const header = request.headers.get('cookie');
    if (!header) return null;
    const value = (await parseSigned(header, options.secret, COOKIE))[COOKIE];
    return typeof value === 'string' && USERNAME.test(value) ? { id: `demo:${value}`, name: value } : null;
  };

  const app = new Hono().basePath('/auth');
  app.use('*', noStore);
  app.post('/login', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { username?: unknown } | null;
    const username = body?.username;
    if (typeof username !== 'string' || !USERNAME.test(username)) {
      throw new HttpError(400, 'invalid_input', 'username: 1-64 letters, digits, dot, dash or underscore');
    }
    await setSignedCookie(c, COOKIE, username, options.secret, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.json({ user: { name: username } });
  });
  app.post('/logout', async (c) => {
    const user = await authenticate(c.req.raw);
    // spec 4.9: sessions must also be revoked server-side on logout.
    if (user) await options.proxy().revokeSessions(user);
    deleteCookie(c, COOKIE, { path: '/' });
    return c.json({ user: null });
  });
  app.get('/me', async (c) => {
    const user = await authenticate(c.req.raw);
    if (!user) throw new HttpError(401, 'unauthenticated', 'log in first');
    return c.json({ user: { name: user.name } });
  });
  app.onError(onHttpError('demo auth'));
  return { app, authenticate };
}
