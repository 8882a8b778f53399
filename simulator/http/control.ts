import { Hono } from 'hono';
import { z } from 'zod';
import { finishApp, HttpError, noStore } from '../../contract/http-error.js';
import { e164, readJsonBody } from '../../contract/voice-input.js';
import type { KeyRegistry, Quota } from '../service/accounts.js';
import { edgeRoutes } from './control-edge.js';
import { networkRoutes } from './control-network.js';
import { parseControlInput } from './control-input.js';
import type { FaultPlan } from '../service/faults.js';
import { KeyControl } from './key-control.js';
import type { VoiceService } from '../service/voice-service.js';

/**
 * The simulator's control API under `/__sim/` (docs/simulator.md): what tests use to see inside the service, to make
 * the far end act, and to make keys in the spec's states. It needs no key: it exists only in the simulator,
 * which listens on loopback.
 */

/** What the control API reaches into. */
export interface ControlOptions {
  service: VoiceService;
  faults: FaultPlan;
  /** The service's accounts and keys: `POST /__sim/keys` adds to them, `PATCH /__sim/keys/:key` changes them. */
  registry: KeyRegistry;
  /** The quota of a key that sets none (spec 8), to answer the one a key runs under. */
  defaultQuota: Quota;
  /** Clears what lives beside the service on `POST /__sim/reset`: quota counters, idempotency records. */
  forget(): void;
}

/**
 * `POST /__sim/inbound`: the queue a caller reaches, by id or by name (`queueId`, or `queue` for a name: `{"queue":
 * "Support"}`), and the numbers.
 */
const inboundInput = z
  .strictObject({ queueId: z.string().min(1).optional(), queue: z.string().min(1).optional(), from: e164, to: e164 })
  .refine((input) => (input.queueId === undefined) !== (input.queue === undefined), { path: ['queueId'], message: 'give the queue as queueId (an id or a name) or queue (a name), one of them' })
  .transform(({ queueId, queue, from, to }) => ({ queueId: queueId ?? queue ?? '', from, to }));

/** `/calls`: what the service holds of a session's calls and of one call, and the far end's acts on a call. */
function callRoutes(app: Hono, service: VoiceService): void {
  app.get('/calls', (c) => {
    const sessionId = c.req.query('sessionId');
    if (!sessionId) throw new HttpError(400, 'missing_fields', 'the sessionId query parameter is required');
    return c.json({ calls: service.callsOfSession(sessionId) });
  });
  app.get('/calls/:id', (c) => {
    const id = c.req.param('id');
    const found = service.inspectCall(id) ?? service.inspectQueueCall(id) ?? service.supervision.inspect(id);
    if (!found) throw new HttpError(404, 'not_found', 'no such call');
    return c.json(found);
  });
  app.post('/calls/:id/remote-hangup', (c) => {
    const call = service.remoteHangup(c.req.param('id'));
    if (!call) throw new HttpError(404, 'not_found', 'no such browser call');
    return c.json({ call }, 202);
  });
  app.post('/calls/:id/refer', async (c) => {
    // The far end asks the page to transfer the call; answers the page's final status code.
    const status = await service.refer(c.req.param('id'), 'sip:+12025550100@voice.invalid');
    if (status === undefined) throw new HttpError(404, 'not_found', 'no such browser call');
    return c.json({ status });
  });
  app.post('/calls/:id/withdraw-invite', async (c) => {
    // Answers once the page answered the CANCEL and the call is `failed`: the caller reads a settled call.
    const call = await service.withdrawInvite(c.req.param('id'));
    if (!call) throw new HttpError(404, 'not_found', 'no such browser call');
    return c.json({ call }, 202);
  });
}

/** `/inbound`: a caller reaches a queue (spec 6.1's `call.received` follows), and hangs up. */
function inboundRoutes(app: Hono, service: VoiceService): void {
  app.post('/inbound', async (c) => c.json({ call: service.queues.arrive(parseControlInput(inboundInput, await readJsonBody(c.req.raw))) }, 201));
  app.post('/inbound/:id/hangup', (c) => c.json({ call: service.queues.callerHangup(c.req.param('id')) }, 202));
}

/** `/faults`: arm, list and clear the faults of the next requests (`FaultPlan`). */
function faultRoutes(app: Hono, faults: FaultPlan, service: VoiceService): void {
  app.post('/faults', async (c) => {
    const body = await readJsonBody(c.req.raw);
    // Behind a SIP edge the page's WebSocket is the edge's: the simulator has none of its own to stall.
    if (service.sip.edgeUrl && (body as { fault?: unknown } | null)?.fault === 'stall-sip-socket') {
      throw new HttpError(409, 'fault_unavailable', "stall-sip-socket needs the page's own socket; behind a SIP edge (SIM_SIP_EDGE_URL) it is the edge's");
    }
    return c.json({ fault: faults.add(body), armed: faults.list() }, 201);
  });
  app.get('/faults', (c) => c.json({ armed: faults.list() }));
  app.delete('/faults', (c) => {
    faults.clear();
    return c.json({ armed: [] });
  });
}

/**
 * The control app, to mount at `/__sim`.
 *
 * @example
 * ```ts
 * app.route('/__sim', createControlApp({ service, faults, registry, defaultQuota: DEFAULT_QUOTA, forget: () => limiter.clear() }));
 * ```
 */
export function createControlApp({ service, faults, registry, defaultQuota, forget }: ControlOptions): Hono {
  const keys = new KeyControl(registry, defaultQuota);
  const app = new Hono();
  app.use('*', noStore);
  callRoutes(app, service);
  inboundRoutes(app, service);
  app.post('/sessions/:id/expire', (c) => {
    const session = service.expireSession(c.req.param('id'));
    if (!session) throw new HttpError(404, 'not_found', 'no such browser session');
    return c.json({ session });
  });
  app.get('/sessions/:id/registration', (c) => {
    const registration = service.registrationOf(c.req.param('id'));
    if (!registration) throw new HttpError(404, 'not_found', 'no such browser session');
    return c.json({ registration });
  });
  faultRoutes(app, faults, service);
  edgeRoutes(app, service);
  networkRoutes(app, service);
  app.post('/keys', async (c) => c.json(keys.create((await readJsonBody(c.req.raw)) ?? {}), 201));
  app.patch('/keys/:key', async (c) => c.json(keys.update(c.req.param('key'), (await readJsonBody(c.req.raw)) ?? {})));
  app.post('/reset', async (c) => {
    forget();
    faults.clear();
    keys.reset();
    service.sip.edge.reset();
    await service.reset();
    return c.json({ reset: true });
  });
  finishApp(app, 'simulator control', 'no such control route');
  return app;
}
