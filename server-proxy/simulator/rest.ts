import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorResponse, HttpError } from '../http-error.js';
import { IdempotencyStore } from './idempotency.js';
import { agentInput, callInput, emptyInput, parseIdempotencyKey, parseInput, sessionInput } from '../voice-input.js';
import type { VoiceService } from './voice-service.js';

/**
 * The simulated service's REST surface under `/api/v1/voice` (spec 4.7), with the credential rules of spec 5.
 */

export type Scope = 'voice_calls.read' | 'voice_calls.write';

export interface ApiKeyRecord {
  scopes: readonly Scope[];
}

type Env = { Variables: { owner: string; scopes: readonly Scope[] } };

/** Finds the caller's key: exactly one of `X-Api-Key` or `Authorization: Bearer` (spec 5.1). */
function credential(c: Context): string {
  const apiKey = c.req.header('x-api-key');
  const authorization = c.req.header('authorization');
  if (apiKey !== undefined && authorization) {
    throw new HttpError(401, 'invalid_credentials', 'send only one credential header: X-Api-Key or Authorization');
  }
  if (apiKey !== undefined) return apiKey;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (bearer?.[1]) return bearer[1];
  throw new HttpError(401, 'invalid_credentials', 'missing or invalid API key');
}

async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'invalid_input', 'the body is not valid JSON');
  }
}

function need(c: Context<Env>, scope: Scope): void {
  if (!c.get('scopes').includes(scope)) throw new HttpError(403, 'insufficient_scope', `this operation needs the ${scope} scope`);
}

export function createRestApp(service: VoiceService, keys: ReadonlyMap<string, ApiKeyRecord>): Hono<Env> {
  const idempotency = new IdempotencyStore();
  const app = new Hono<Env>();

  app.use('*', async (c, next) => {
    await next();
    // spec 4.7: reads are never cached and credentials are answered no-store.
    c.header('Cache-Control', 'no-store');
  });
  app.use('*', bodyLimit({ maxSize: 5 * 1024 * 1024, onError: () => errorResponse(new HttpError(413, 'payload_too_large', 'the body is over 5 MB')) }));
  app.use('*', async (c, next) => {
    const key = credential(c);
    const record = keys.get(key);
    if (!record) throw new HttpError(401, 'invalid_credentials', 'missing or invalid API key');
    c.set('owner', key);
    c.set('scopes', record.scopes);
    await next();
  });

  /** Runs a creating operation under its Idempotency-Key, namespaced by API key and operation (spec 3.4). */
  const idempotent = async (c: Context<Env>, operation: string, input: unknown, work: () => Promise<{ status: number; body: unknown }>) => {
    const key = parseIdempotencyKey(c.req.header('idempotency-key'));
    const response = await idempotency.run(`${c.get('owner')}\n${operation}`, key, input, work);
    return c.json(response.body as object, response.status as 201);
  };

  app.post('/agents', async (c) => {
    need(c, 'voice_calls.write');
    const input = parseInput(agentInput, await jsonBody(c));
    return c.json(service.createAgent(c.get('owner'), input), 201);
  });
  app.get('/agents', (c) => {
    need(c, 'voice_calls.read');
    return c.json({ agents: service.listAgents(c.get('owner'), c.req.query('externalSubject')) });
  });

  app.post('/browser-sessions', async (c) => {
    need(c, 'voice_calls.write');
    const input = parseInput(sessionInput, await jsonBody(c));
    return idempotent(c, 'POST /browser-sessions', input, async () => ({
      status: 201,
      body: service.createSession(c.get('owner'), input.externalSubject),
    }));
  });
  app.get('/browser-sessions', (c) => {
    need(c, 'voice_calls.read');
    const subject = c.req.query('externalSubject');
    if (!subject) throw new HttpError(400, 'missing_fields', 'the externalSubject query parameter is required');
    return c.json(service.currentSession(c.get('owner'), subject));
  });
  app.get('/browser-sessions/:id', (c) => {
    need(c, 'voice_calls.read');
    return c.json({ session: service.getSession(c.get('owner'), c.req.param('id')) });
  });
  app.delete('/browser-sessions/:id', async (c) => {
    need(c, 'voice_calls.write');
    parseInput(emptyInput, await jsonBody(c));
    return c.json({ session: service.endSession(c.get('owner'), c.req.param('id')) });
  });

  app.post('/browser-calls', async (c) => {
    need(c, 'voice_calls.write');
    const input = parseInput(callInput, await jsonBody(c));
    return idempotent(c, 'POST /browser-calls', input, async () => ({
      status: 202,
      body: { call: await service.createCall(c.get('owner'), input) },
    }));
  });
  app.get('/browser-calls/:id', (c) => {
    need(c, 'voice_calls.read');
    return c.json({ call: service.getCall(c.get('owner'), c.req.param('id')) });
  });
  app.post('/browser-calls/:id/hangup', async (c) => {
    need(c, 'voice_calls.write');
    parseInput(emptyInput, await jsonBody(c));
    return c.json({ call: service.hangupCall(c.get('owner'), c.req.param('id')) }, 202);
  });

  app.notFound(() => errorResponse(new HttpError(404, 'not_found', 'no such route')));
  app.onError((error) => {
    if (error instanceof HttpError) return errorResponse(error);
    console.error('simulator: unexpected error', error);
    return Response.json({ error: 'internal error', code: 'internal_error' }, { status: 500, headers: { 'Cache-Control': 'no-store' } });
  });
  return app;
}
