import type { Hono } from 'hono';
import { HttpError } from '../../contract/http-error.js';
import { readJsonBody } from '../../contract/voice-input.js';
import { parseControlInput } from './control-input.js';
import { edgeRestartInput } from '../sip/edge/edge-state.js';
import type { VoiceService } from '../service/voice-service.js';

/**
 * The control API's edge routes (docs/simulator.md, "Edge profiles"): the SIP edge the service speaks
 * as for what comes next, its restart, and the far end's hold of a call, which an edge without music on hold
 * sends as a re-INVITE and silence.
 */

/** `/edge`, `/edge/restart`, `/calls/:id/hold` and `/calls/:id/unhold`. */
export function edgeRoutes(app: Hono, service: VoiceService): void {
  app.get('/edge', (c) => c.json({ edge: service.sip.edge.view() }));
  app.put('/edge', async (c) => c.json({ edge: service.sip.edge.set(await readJsonBody(c.req.raw)) }));
  app.post('/edge/restart', async (c) => {
    const { seconds } = parseControlInput(edgeRestartInput, await readJsonBody(c.req.raw));
    service.sip.restartEdge(seconds * 1000);
    return c.json({ edge: service.sip.edge.view() });
  });
  for (const [path, held] of [['hold', true], ['unhold', false]] as const) {
    app.post(`/calls/:id/${path}`, async (c) => {
      // Answers once the page answered the re-INVITE, with its final status code.
      const status = await service.calls.hold(c.req.param('id'), held);
      if (status === undefined) throw new HttpError(404, 'not_found', 'no such browser call');
      return c.json({ status });
    });
  }
}
