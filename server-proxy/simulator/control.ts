import { Hono } from 'hono';
import { finishApp, HttpError, noStore } from '../http-error.js';
import type { FaultPlan } from './faults.js';
import type { VoiceService } from './voice-service.js';

/**
 * The simulator's control API under `/__sim/` (DESIGN.md): what tests use to see inside the service and to
 * make the far end act. It needs no key: it exists only in the simulator, which listens on loopback.
 */
/** `forget` clears what lives beside the service: armed faults, quota counters, idempotency records. */
export function createControlApp(service: VoiceService, forget: () => void, faults: FaultPlan): Hono {
  const app = new Hono();
  app.use('*', noStore);

  app.get('/calls', (c) => {
    const sessionId = c.req.query('sessionId');
    if (!sessionId) throw new HttpError(400, 'missing_fields', 'the sessionId query parameter is required');
    return c.json({ calls: service.callsOfSession(sessionId) });
  });
  app.get('/calls/:id', (c) => {
    const found = service.inspectCall(c.req.param('id'));
    if (!found) throw new HttpError(404, 'not_found', 'no such browser call');
    return c.json(found);
  });
  app.post('/calls/:id/remote-hangup', (c) => {
    const call = service.remoteHangup(c.req.param('id'));
    if (!call) throw new HttpError(404, 'not_found', 'no such browser call');
    return c.json({ call }, 202);
  });
  app.post('/sessions/:id/expire', (c) => {
    const session = service.expireSession(c.req.param('id'));
    if (!session) throw new HttpError(404, 'not_found', 'no such browser session');
    return c.json({ session });
  });
  app.post('/faults', async (c) => {
    const body: unknown = await c.req.json().catch(() => {
      throw new HttpError(400, 'invalid_input', 'the body is not valid JSON');
    });
    return c.json({ fault: faults.add(body), armed: faults.list() }, 201);
  });
  app.get('/faults', (c) => c.json({ armed: faults.list() }));
  app.delete('/faults', (c) => {
    faults.clear();
    return c.json({ armed: [] });
  });
  app.post('/reset', async (c) => {
    forget();
    await service.reset();
    return c.json({ reset: true });
  });

  finishApp(app, 'simulator control', 'no such control route');
  return app;
}
