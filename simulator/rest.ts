import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorResponse, finishApp, HttpError } from '../contract/http-error.js';
import { agentInput, callInput, emptyInput, parseIdempotencyKey, parseInput, readJsonBody, sessionInput } from '../contract/voice-input.js';
import { assertAccountAllowsVoice, assertScope, KeyRegistry, readCredential, type Principal, type Quota, type Scope } from './accounts.js';
import { CallCeiling } from './concurrency.js';
import { IdempotencyStore } from './idempotency.js';
import { DEFAULT_QUOTA, RateLimiter, rateLimitHeaders, type RateDecision } from './rate-limit.js';
import type { VoiceService } from './voice-service.js';

/**
 * The simulated service's REST surface under `/api/v1/voice` (spec 4.7), with the credential rules of
 * spec 5 and the limits of spec 8.
 *
 * @remarks
 * Every request is counted against its quota (per key, or per address for a caller without a valid key),
 * then refused in this order: a valid key's account (403: suspended, then not voice-entitled), the quota
 * (429), credentials (401), the 5 MB body limit (413), the route's scope (403) and input (400). So a caller
 * without a valid key meets the quota before its 401, and a suspended account gets its 403 on every request,
 * never a 429 (spec 5.4). Every answer, refusals included, carries `Cache-Control: no-store` and the three
 * `X-RateLimit-*` headers; only the 429 adds `Retry-After`. Resources and Idempotency-Keys belong to the
 * issuing key: the key's value is the service's `owner`, so another key, even of the same account, sees none
 * of them (spec 4.7).
 */

export type { Scope } from './accounts.js';

/** One key of the single-account form of {@link createRestApp}. */
export interface ApiKeyRecord {
  scopes: readonly Scope[];
}

export interface RestOptions {
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
  /** The Idempotency-Key records, given so that their owner can clear them; default a new one on `now`. */
  idempotency?: IdempotencyStore;
}

type Env = { Variables: { principal: Principal; rateLimit: RateDecision | undefined } };

const BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/** The remote address of the socket under @hono/node-server; undefined without one. */
export function socketAddress(c: Context): string | undefined {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null || !('incoming' in env || 'server' in env)) return undefined;
  return getConnInfo(c).remote.address;
}

/** The subject of a query, shaped so that an absent one is `missing_fields` and a long one `field_too_long`. */
function subjectQuery(c: Context): { externalSubject: string } {
  const externalSubject = c.req.query('externalSubject');
  return parseInput(sessionInput, externalSubject === undefined ? {} : { externalSubject });
}

/** Sets what every answer carries, refusals included, once the rest of the chain has answered. */
const answerHeaders: MiddlewareHandler<Env> = async (c, next) => {
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
function guard(registry: KeyRegistry, options: RestOptions): MiddlewareHandler<Env> {
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

/**
 * The REST app of the simulated service.
 *
 * @param keys - a {@link KeyRegistry} of accounts and keys, or a map of key values to scopes: one account
 *   with default settings holding every key of the map, in whatever format its values have.
 *
 * @example
 * ```ts
 * const registry = new KeyRegistry();
 * registry.addAccount({ id: 'acct_1', maxActiveCalls: 2 });
 * const { value } = registry.addKey({ accountId: 'acct_1' });
 * const app = new Hono().route('/api/v1/voice', createRestApp(service, registry, { quota: { perMinute: 600 } }));
 * ```
 */
export function createRestApp(service: VoiceService, keys: ReadonlyMap<string, ApiKeyRecord> | KeyRegistry, options: RestOptions = {}): Hono<Env> {
  const registry = keys instanceof KeyRegistry ? keys : KeyRegistry.fromScopes(keys);
  const idempotency = options.idempotency ?? new IdempotencyStore(options.now);
  const ceiling = new CallCeiling((id) => service.inspectCall(id)?.call.busy === true);
  const app = new Hono<Env>();

  app.use('*', answerHeaders, guard(registry, options));
  app.use('*', bodyLimit({ maxSize: BODY_LIMIT_BYTES, onError: () => errorResponse(new HttpError(413, 'payload_too_large', 'the body is over 5 MB')) }));

  const need = (c: Context<Env>, scope: Scope): string => {
    assertScope(c.get('principal'), scope);
    return c.get('principal').key.value;
  };

  /** Runs a creating operation under its Idempotency-Key, namespaced by API key and operation (spec 3.4). */
  const idempotent = async (c: Context<Env>, key: string, operation: string, input: unknown, work: () => Promise<{ status: 201 | 202; body: object }>) => {
    const response = await idempotency.run(`${c.get('principal').key.value}\n${operation}`, key, input, async () => {
      const { status, body } = await work();
      return { status, body: JSON.stringify(body) };
    });
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (response.replayed) headers['Idempotent-Replayed'] = 'true';
    return new Response(response.body, { status: response.status, headers });
  };

  app.post('/agents', async (c) => {
    const owner = need(c, 'voice_calls.write');
    const input = parseInput(agentInput, await readJsonBody(c.req.raw));
    return c.json(service.createAgent(owner, input), 201);
  });
  app.get('/agents', (c) => {
    const owner = need(c, 'voice_calls.read');
    const subject = c.req.query('externalSubject') === undefined ? undefined : subjectQuery(c).externalSubject;
    return c.json({ agents: service.listAgents(owner, subject) });
  });

  app.post('/browser-sessions', async (c) => {
    const owner = need(c, 'voice_calls.write');
    const key = parseIdempotencyKey(c.req.header('idempotency-key'));
    const input = parseInput(sessionInput, await readJsonBody(c.req.raw));
    return idempotent(c, key, 'POST /browser-sessions', input, async () => ({ status: 201, body: service.createSession(owner, input.externalSubject) }));
  });
  app.get('/browser-sessions', (c) => {
    const owner = need(c, 'voice_calls.read');
    return c.json(service.currentSession(owner, subjectQuery(c).externalSubject));
  });
  app.get('/browser-sessions/:id', (c) => {
    const owner = need(c, 'voice_calls.read');
    return c.json({ session: service.getSession(owner, c.req.param('id')) });
  });
  app.delete('/browser-sessions/:id', async (c) => {
    const owner = need(c, 'voice_calls.write');
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    return c.json({ session: service.endSession(owner, c.req.param('id')) });
  });

  app.post('/browser-calls', async (c) => {
    const owner = need(c, 'voice_calls.write');
    const key = parseIdempotencyKey(c.req.header('idempotency-key'));
    const input = parseInput(callInput, await readJsonBody(c.req.raw));
    const { account } = c.get('principal');
    return idempotent(c, key, 'POST /browser-calls', input, async () => {
      // spec 2.6: `record` is honoured only when the account supports recording.
      const accepted = { ...input, record: input.record === true && account.recordingSupported };
      return { status: 202, body: { call: await ceiling.admit(account, () => service.createCall(owner, accepted)) } };
    });
  });
  app.get('/browser-calls/:id', (c) => {
    const owner = need(c, 'voice_calls.read');
    return c.json({ call: service.getCall(owner, c.req.param('id')) });
  });
  app.post('/browser-calls/:id/hangup', async (c) => {
    const owner = need(c, 'voice_calls.write');
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    return c.json({ call: service.hangupCall(owner, c.req.param('id')) }, 202);
  });

  finishApp(app, 'simulator');
  return app;
}
