import type { Hono } from 'hono';
import { z } from 'zod';
import { readJsonBody } from '../../contract/voice-input.js';
import { parseControlInput } from './control-input.js';
import { NETWORK_PROFILES } from '../turn/network-profile.js';
import type { VoiceService } from '../service/voice-service.js';

/**
 * The control API's network routes (docs/network.md): the network profile new sessions' ICE configuration is
 * issued for, for everyone or for one subject. A TURN-using profile starts the simulator's coturn first.
 */

const networkInput = z.strictObject({
  profile: z.enum(NETWORK_PROFILES, { error: `must be ${NETWORK_PROFILES.map((profile) => `"${profile}"`).join(', ')}` }),
  externalSubject: z.string().min(1).optional(),
});

/** `GET /network` and `PUT /network`. */
export function networkRoutes(app: Hono, service: VoiceService): void {
  app.get('/network', (c) => c.json({ network: service.network.view() }));
  app.put('/network', async (c) => c.json({ network: await service.network.set(parseControlInput(networkInput, await readJsonBody(c.req.raw))) }));
}
