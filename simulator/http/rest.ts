import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorResponse, finishApp, HttpError } from '../../contract/http-error.js';
import { agentInput, callInput, dequeueInput, emptyInput, parseIdempotencyKey, parseInput, queueInput, readJsonBody, sessionInput } from '../../contract/voice-input.js';
import { KeyRegistry, type Scope } from '../service/accounts.js';
import { CallCeiling } from './concurrency.js';
import { IdempotencyStore } from './idempotency.js';
import { answerHeaders, guard, idempotent, ownerWith, type GuardOptions, type RestEnv } from './rest-guard.js';
import { supervisionRoutes } from './rest-supervision.js';
import type { VoiceService } from '../service/voice-service.js';

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

export type { Scope } from '../service/accounts.js';

/** One key of the single-account form of {@link createRestApp}. */
export interface ApiKeyRecord {
  scopes: readonly Scope[];
}

/** How the app counts and identifies callers (`guard`), and where it keeps Idempotency-Keys. */
export interface RestOptions extends GuardOptions {
  /** The Idempotency-Key records, given so that their owner can clear them; default a new one on `now`. */
  idempotency?: IdempotencyStore;
}

/** spec 8: a larger body is refused with 413 before it is read. */
const BODY_LIMIT_BYTES = 5 * 1024 * 1024;

/** The subject of a query, shaped so that an absent one is `missing_fields` and a long one `field_too_long`. */
function subjectQuery(c: Context): { externalSubject: string } {
  const externalSubject = c.req.query('externalSubject');
  return parseInput(sessionInput, externalSubject === undefined ? {} : { externalSubject });
}

/** `/agents`: create one, list them (spec 4.7). */
function agentRoutes(app: Hono<RestEnv>, service: VoiceService): void {
  app.post('/agents', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    const input = parseInput(agentInput, await readJsonBody(c.req.raw));
    return c.json(service.createAgent(owner, input), 201);
  });
  app.get('/agents', (c) => {
    const owner = ownerWith(c, 'voice_calls.read');
    const subject = c.req.query('externalSubject') === undefined ? undefined : subjectQuery(c).externalSubject;
    return c.json({ agents: service.listAgents(owner, subject) });
  });
}

/** `/browser-sessions`: create one (idempotent), read the current one or one by id, end one (spec 4.7). */
function sessionRoutes(app: Hono<RestEnv>, service: VoiceService, idempotency: IdempotencyStore): void {
  app.post('/browser-sessions', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    const key = parseIdempotencyKey(c.req.header('idempotency-key'));
    const input = parseInput(sessionInput, await readJsonBody(c.req.raw));
    return idempotent(idempotency, c, key, 'POST /browser-sessions', input, async () => ({ status: 201, body: service.createSession(owner, input.externalSubject) }));
  });
  app.get('/browser-sessions', (c) => {
    const owner = ownerWith(c, 'voice_calls.read');
    return c.json(service.currentSession(owner, subjectQuery(c).externalSubject));
  });
  app.get('/browser-sessions/:id', (c) => {
    const owner = ownerWith(c, 'voice_calls.read');
    return c.json({ session: service.getSession(owner, c.req.param('id')) });
  });
  app.delete('/browser-sessions/:id', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    return c.json({ session: service.endSession(owner, c.req.param('id')) });
  });
}

/** `/browser-calls`: place one (idempotent, under the account's call ceiling), read one, hang one up (spec 4.7). */
function callRoutes(app: Hono<RestEnv>, service: VoiceService, idempotency: IdempotencyStore): void {
  const ceiling = new CallCeiling((id) => service.inspectCall(id)?.call.busy === true);
  app.post('/browser-calls', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    const key = parseIdempotencyKey(c.req.header('idempotency-key'));
    const input = parseInput(callInput, await readJsonBody(c.req.raw));
    const { account } = c.get('principal');
    return idempotent(idempotency, c, key, 'POST /browser-calls', input, async () => {
      // spec 2.6: `record` is honoured only when the account supports recording.
      const accepted = { ...input, record: input.record === true && account.recordingSupported };
      return { status: 202, body: { call: await ceiling.admit(account, () => service.createCall(owner, accepted)) } };
    });
  });
  app.get('/browser-calls/:id', (c) => {
    const owner = ownerWith(c, 'voice_calls.read');
    return c.json({ call: service.getCall(owner, c.req.param('id')) });
  });
  app.post('/browser-calls/:id/hangup', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    return c.json({ call: service.hangupCall(owner, c.req.param('id')) }, 202);
  });
}

/** `/queues` (spec 4.8: create, list, dequeue) and the generic calls they hold (spec 3.1: read, list, hang up). */
function queueRoutes(app: Hono<RestEnv>, service: VoiceService): void {
  app.post('/queues', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    const input = parseInput(queueInput, await readJsonBody(c.req.raw));
    return c.json({ queue: service.queues.create(owner, input) }, 201);
  });
  app.get('/queues', (c) => c.json({ queues: service.queues.list(ownerWith(c, 'voice_calls.read')) }));
  app.post('/queues/:id/dequeue', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    const { connectTo } = parseInput(dequeueInput, await readJsonBody(c.req.raw));
    return c.json({ call: await service.dequeue(owner, c.req.param('id'), connectTo) });
  });
  // Generic calls: queued callers, and the monitor legs of supervision (`supervisionRoutes`).
  app.get('/calls', (c) => {
    const owner = ownerWith(c, 'voice_calls.read');
    const status = c.req.query('status');
    if (status !== undefined && status !== 'active') throw new HttpError(400, 'invalid_input', 'status: the only filter is active');
    const calls = [...service.queues.listCalls(owner, status === 'active'), ...service.supervision.listMonitors(owner, status === 'active')];
    return c.json({ calls: calls.sort((a, b) => a.createdAt.localeCompare(b.createdAt)) });
  });
  app.get('/calls/:id', (c) => {
    const owner = ownerWith(c, 'voice_calls.read');
    return c.json({ call: service.supervision.monitorCall(owner, c.req.param('id')) ?? service.queues.get(owner, c.req.param('id')) });
  });
  app.post('/calls/:id/hangup', async (c) => {
    const owner = ownerWith(c, 'voice_calls.write');
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    return c.json({ call: service.supervision.hangupMonitor(owner, c.req.param('id')) ?? service.queues.hangup(owner, c.req.param('id')) }, 202);
  });
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
export function createRestApp(service: VoiceService, keys: ReadonlyMap<string, ApiKeyRecord> | KeyRegistry, options: RestOptions = {}): Hono<RestEnv> {
  const registry = keys instanceof KeyRegistry ? keys : KeyRegistry.fromScopes(keys);
  const idempotency = options.idempotency ?? new IdempotencyStore(options.now);
  const app = new Hono<RestEnv>();
  app.use('*', answerHeaders, guard(registry, options));
  app.use('*', bodyLimit({ maxSize: BODY_LIMIT_BYTES, onError: () => errorResponse(new HttpError(413, 'payload_too_large', 'the body is over 5 MB')) }));
  agentRoutes(app, service);
  sessionRoutes(app, service, idempotency);
  callRoutes(app, service, idempotency);
  queueRoutes(app, service);
  supervisionRoutes(app, service, idempotency);
  finishApp(app, 'simulator');
  return app;
}
