import { Hono } from 'hono';
import { deleteCookie, setSignedCookie } from 'hono/cookie';
import { parse, parseSigned } from 'hono/utils/cookie';
import { refuseCrossSite } from '../../server-proxy/access/cross-site.js';
import { HttpError, noStore, onHttpError } from '../../contract/http-error.js';
import type { ProxyUser, VoiceProxy } from '../../server-proxy/setup/proxy.js';

/**
 * The demo's stand-in for an integrator's login: a username in a signed, HttpOnly, SameSite=Strict cookie.
 * Real apps pass their own `authenticate` to `createVoiceProxy` instead.
 *
 * Its one role (README, "The demo"): a username that starts with `lead` is a supervisor of every demo queue and
 * of every other user this server has seen log in (or present their cookie) since it started.
 */

const COOKIE = 'vb_user';
const USERNAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Signed cookie values already verified, newest last; a page polls every second with the same one. */
const VERIFIED_LIMIT = 1000;
/** The usernames a supervisor supervises at most: the newest seen. */
const SEEN_LIMIT = 1000;

/** Whether `username` is a supervisor in the demo: it starts with `lead` (any case). */
export const isDemoSupervisor = (username: string): boolean => /^lead/i.test(username);

/** What the page is told of a user: their name, and `supervisor: true` for a supervisor (so others' pages never ask for a supervisor's list). */
const pageUser = (username: string): { name: string; supervisor?: true } => (isDemoSupervisor(username) ? { name: username, supervisor: true } : { name: username });

/** The user id the demo gives `username` (the proxy's `ProxyUser.id`). */
const userId = (username: string): string => `demo:${username}`;

/** The demo login: its routes and the `authenticate` the proxy uses. */
export interface DemoAuth {
  /** Routes `/auth/login`, `/auth/logout`, `/auth/me` (`{user}`: `{name}`, with `supervisor: true` for a supervisor; null when nobody is logged in). */
  app: Hono;
  authenticate(request: Request): Promise<ProxyUser | null>;
}

/** Options of {@link createDemoAuth}. */
export interface DemoAuthOptions {
  /** Signs the cookie (32+ characters). */
  secret: string;
  /** The proxy whose `revokeSessions` logout calls. */
  proxy: () => VoiceProxy;
  /** Where a failed revocation is logged; default `console.error`. */
  log?: (line: string) => void;
  /** The queues a demo supervisor supervises: those the user may answer (the proxy's `queuesFor`); default none. */
  supervisedQueues?: (user: ProxyUser) => readonly string[] | Promise<readonly string[]>;
}

/** Adds `username` to `seen` as its newest, dropping the oldest past the limit. */
function see(seen: Set<string>, username: string): void {
  seen.delete(username);
  if (seen.size >= SEEN_LIMIT) seen.delete(seen.values().next().value as string);
  seen.add(username);
}

/** The proxy's user for `username`: a supervisor supervises everyone else seen, and the queues it is given. */
async function userOf(username: string, seen: ReadonlySet<string>, supervisedQueues: DemoAuthOptions['supervisedQueues']): Promise<ProxyUser> {
  const user: ProxyUser = { id: userId(username), name: username };
  if (!isDemoSupervisor(username)) return user;
  const agents = [...seen].filter((other) => other !== username).map(userId);
  const queues = [...((await supervisedQueues?.(user)) ?? [])];
  return { ...user, supervisor: { agents, queues } };
}

/**
 * Reads the username out of a request's cookie header, or null without a good signature.
 *
 * @remarks
 * The signature covers the value alone (no expiry in it), so a value that verified once always will under this
 * secret: remembering it spares each poll two WebCrypto calls, which keeps the proxy within its added-latency
 * target (docs/bench.md). Only good signatures are kept, in a bounded map, so forged cookies cannot grow it.
 */
function cookieReader(secret: string): (header: string) => Promise<string | null> {
  const verified = new Map<string, string>();
  return async (header) => {
    const raw = parse(header, COOKIE)[COOKIE];
    if (raw === undefined) return null;
    const known = verified.get(raw);
    if (known !== undefined) return known;
    const checked = (await parseSigned(header, secret, COOKIE))[COOKIE];
    if (typeof checked !== 'string') return null;
    if (verified.size >= VERIFIED_LIMIT) verified.delete(verified.keys().next().value as string);
    verified.set(raw, checked);
    return checked;
  };
}

/** Logs the user out at the service: whether their browser sessions were revoked there. */
function revokeAtLogout(options: DemoAuthOptions, user: ProxyUser | null, log: (line: string) => void): Promise<boolean> {
  if (!user) return Promise.resolve(true);
  return options.proxy().revokeSessions(user).then(
    () => true,
    // The user still leaves: a session left at the service expires by itself, a login left in the page does not.
    (error: unknown) => {
      log(`demo auth: logout could not end the browser session at the service (${error instanceof HttpError ? error.code : 'unexpected error'})`);
      return false;
    },
  );
}

/** The routes `/auth/login`, `/auth/logout` and `/auth/me` over `authenticate`. */
function authRoutes(options: DemoAuthOptions, authenticate: DemoAuth['authenticate'], seen: Set<string>): Hono {
  const log = options.log ?? ((line: string) => console.error(line));
  const app = new Hono().basePath('/auth');
  // A login or logout from another site (login CSRF) is refused like any other cross-site mutation.
  app.use('*', noStore, refuseCrossSite());
  app.post('/login', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { username?: unknown } | null;
    const username = body?.username;
    if (typeof username !== 'string' || !USERNAME.test(username)) {
      throw new HttpError(400, 'invalid_input', 'username: 1-64 letters, digits, dot, dash or underscore');
    }
    await setSignedCookie(c, COOKIE, username, options.secret, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      // Secure whenever the page itself is served over TLS; the local demo runs on plain http://127.0.0.1.
      secure: new URL(c.req.url).protocol === 'https:',
    });
    see(seen, username);
    return c.json({ user: pageUser(username) });
  });
  app.post('/logout', async (c) => {
    // spec 4.9: sessions must also be revoked server-side on logout.
    const revoked = await revokeAtLogout(options, await authenticate(c.req.raw), log);
    deleteCookie(c, COOKIE, { path: '/', httpOnly: true, sameSite: 'Strict' });
    return c.json({ user: null, revoked });
  });
  // Who is logged in, if anyone: nobody is an answer (`user: null`), not an error, so a logged-out page's
  // first question logs no failed request in the browser's console.
  app.get('/me', async (c) => {
    const user = await authenticate(c.req.raw);
    return c.json({ user: user?.name ? pageUser(user.name) : null });
  });
  app.onError(onHttpError('demo auth'));
  return app;
}

/** Creates the demo login; see {@link DemoAuth}. */
export function createDemoAuth(options: DemoAuthOptions): DemoAuth {
  const readCookie = cookieReader(options.secret);
  // Everyone seen since start, newest last: whom a `lead` user supervises.
  const seen = new Set<string>();
  const authenticate = async (request: Request): Promise<ProxyUser | null> => {
    const header = request.headers.get('cookie');
    if (!header) return null;
    const value = await readCookie(header);
    if (value === null || !USERNAME.test(value)) return null;
    if (!seen.has(value)) see(seen, value);
    return userOf(value, seen, options.supervisedQueues);
  };
  return { app: authRoutes(options, authenticate, seen), authenticate };
}
