import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { HttpError } from '../../contract/http-error.js';
import { assertAccountAllowsVoice, assertScope, readCredential, type KeyRegistry, type Principal, type Quota, type Scope } from '../service/accounts.js';
import type { IdempotencyStore } from './idempotency.js';
import { DEFAULT_QUOTA, RateLimiter, rateLimitHeaders, type RateDecision } from './rate-limit.js';

/**
 * What stands before every route of the REST surface (`createRestApp`): the quota count, then the refusals of the
 * caller's account (403), quota (429) and credentials (401) in the order spec 5.4 asks, and the headers every
 * answer carries, refusals included (spec 4.7, spec 8); and the two helpers every route file uses: the caller's key
 * once it holds a scope, and a creating operation run under its Idempotency-Key.
 */

/** What the guard leaves on the context for the routes: the caller, and the quota decision for the headers. */
export type RestEnv = { Variables: { principal: Principal; rateLimit: RateDecision | undefined } };

/** How the guard counts and identifies callers. */
export interface GuardOptions {
  /** Clock of the quota windows and of idempotency retention; default `Date.now`. */
  now?: () => number;
  /**
   * The caller's IP address, for allow-lists and for counting callers without a valid key. The default is
   * the socket's remote address under @hono/node-server, and undefined where there is no socket
   * (`app.request` in tests), which an allow-listed key refuses.
   */
  clientAddress?: (c: Context) => string | undefined;
  /** Quota of every key that sets none of its own; default 100 a minute and 10,000 an hour (spec 8). */
  quota?: Partial<Quota>;
  /** The quota counters, given so that their owner can clear them (`POST /__sim/reset`); default a new one on `now`. */
  limiter?: RateLimiter;
}

/** The remote address of the socket under @hono/node-server; undefined without one. */
export function socketAddress(c: Context): string | undefined {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null || !('incoming' in env || 'server' in env)) return undefined;
  return getConnInfo(c).remote.address;
}

/** Sets what every answer carries, refusals included, once the rest of the chain has answered. */
export const answerHeaders: MiddlewareHandler<RestEnv> = async (c, next) => {
  await next();
  // spec 4.7: reads are never cached and credentials are answered no-store.
  c.header('Cache-Control', 'no-store');
  // spec 8: the quota headers go on every response; Retry-After only on the 429, which carries its own, not on
  // a 403 of a suspended account whose quota also ran out (there is nothing to wait for, spec 5.4).
  const decision = c.get('rateLimit');
  if (!decision) return;
  for (const [name, value] of Object.entries(rateLimitHeaders({ ...decision, retryAfterSeconds: undefined }))) c.header(name, value);
};

/** Counts the request against its quota, then refuses it for its account (403), quota (429) or credential (401). */
export function guard(registry: KeyRegistry, options: GuardOptions): MiddlewareHandler<RestEnv> {
  const limiter = options.limiter ?? new RateLimiter(options.now);
  const clientAddress = options.clientAddress ?? socketAddress;
  const defaultQuota: Quota = { ...DEFAULT_QUOTA, ...options.quota };
  return async (c, next) => {
    const address = clientAddress(c);
    const credential = readCredential(c.req.header('x-api-key'), c.req.header('authorization'));
    const identity = credential instanceof HttpError ? credential : registry.authenticate(credential, address);
    // A caller without a valid key counts against its address, so guessing keys costs quota too.
    const known = identity instanceof HttpError ? undefined : identity;
    const decision = limiter.take(known ? `key:${known.key.value}` : `address:${address ?? 'unknown'}`, { ...defaultQuota, ...known?.key.quota });
    c.set('rateLimit', decision);
    // spec 5.4: a suspended account is refused on every request at request time, whatever the key, before
    // the quota: a 429 would have the caller wait out the window only to learn the account is suspended.
    if (known) assertAccountAllowsVoice(known.account);
    if (!decision.allowed) {
      throw new HttpError(429, 'rate_limited', `the request quota is used up; retry after ${decision.retryAfterSeconds ?? 1} s`, rateLimitHeaders(decision));
    }
    if (!known) throw identity;
    c.set('principal', known);
    await next();
  };
}

/** The caller's key once it holds `scope` (403 otherwise): the owner of what the request creates and reads. */
export function ownerWith(c: Context<RestEnv>, scope: Scope): string {
  assertScope(c.get('principal'), scope);
  return c.get('principal').key.value;
}

/** Runs a creating operation under its Idempotency-Key, namespaced by API key and operation (spec 3.4). */
export async function idempotent(
  store: IdempotencyStore,
  c: Context<RestEnv>,
  key: string,
  operation: string,
  input: unknown,
  work: () => Promise<{ status: 201 | 202; body: object }>,
): Promise<Response> {
  const response = await store.run(`${c.get('principal').key.value}\n${operation}`, key, input, async () => {
    const { status, body } = await work();
    return { status, body: JSON.stringify(body) };
  });
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (response.replayed) headers['Idempotent-Replayed'] = 'true';
  return new Response(response.body, { status: response.status, headers });
}
