import { randomBytes } from 'node:crypto';
import { HttpError } from '../../contract/http-error.js';
import { createUpstream, type UpstreamOptions } from '../../server-proxy/upstream/upstream.js';

/**
 * `npm start`'s support desk: two queues made at the service when the demo starts, whose webhooks come back to
 * the demo's own receiver (`notifyUrl` on loopback, as the simulator requires), signed with a secret made for
 * this process. Every demo user may see and take both. Support is pulled (Answer next); Sales is in offer mode
 * (server-proxy/README.md, "Offer mode"): its callers ring the longest-idle available agent, so the demo shows
 * both modes side by side.
 */

/** The demo's queues, by name. */
export const DEMO_QUEUE_NAMES = ['Support', 'Sales'] as const;

/** The demo queue in offer mode; the other is pulled. The demo page names it too (demo/queue-labels.ts). */
export const DEMO_OFFER_QUEUE_NAME: (typeof DEMO_QUEUE_NAMES)[number] = 'Sales';

/** The hold music the service plays to waiting callers (spec 4.8 needs one; the simulator never fetches it). */
const HOLD_AUDIO_URL = 'https://example.com/voice-browser/hold-music.mp3';

/** What `createVoiceProxy`'s `queues` needs from the demo: the secret, the ids every user may take, the offer-mode ones. */
export interface DemoQueues {
  notifySecret: string;
  ids: readonly string[];
  /** The ids of {@link DEMO_OFFER_QUEUE_NAME}'s queue: its callers are offered to available agents. */
  offerIds: readonly string[];
  /** Each queue's id and name, in {@link DEMO_QUEUE_NAMES}' order. */
  named: ReadonlyArray<{ id: string; name: string }>;
}

/** Makes one queue; its id, or an error naming what the service answered. */
async function createQueue(upstream: ReturnType<typeof createUpstream>, name: string, notifyUrl: string, notifySecret: string): Promise<string> {
  const response = await upstream({ method: 'POST', path: '/queues', body: { name, holdAudioUrl: HOLD_AUDIO_URL, notifyUrl, notifySecret } });
  const id = (response.body as { queue?: { id?: unknown } } | undefined)?.queue?.id;
  if (response.status !== 201 || typeof id !== 'string') {
    const code = (response.body as { code?: unknown } | undefined)?.code;
    throw new Error(`POST /queues answered ${response.status}${typeof code === 'string' ? ` ${code}` : ''}`);
  }
  return id;
}

/** The key's queues of each demo name, as the service lists them (the first of a name, if several). */
async function existingQueues(upstream: ReturnType<typeof createUpstream>): Promise<Map<string, string>> {
  const response = await upstream({ method: 'GET', path: '/queues' });
  if (response.status !== 200) throw new Error(`GET /queues answered ${response.status}`);
  const queues = (response.body as { queues?: Array<{ id?: unknown; name?: unknown }> } | undefined)?.queues ?? [];
  const byName = new Map<string, string>();
  for (const { id, name } of queues) if (typeof id === 'string' && typeof name === 'string' && !byName.has(name)) byName.set(name, id);
  return byName;
}

/**
 * Makes the demo's queues at the service, posting their webhooks to `notifyUrl`; resolves null, after one line
 * on `log` saying why, when the service would not (the demo then runs without its support desk). With `secret`
 * (`QUEUE_SECRET`), queues of the demo's names already at the service are taken as they are: another replica
 * made them with that secret, and their webhooks reach this one's agents through Redis.
 */
export async function createDemoQueues(voice: UpstreamOptions, notifyUrl: string, secret?: string, log: (line: string) => void = console.error): Promise<DemoQueues | null> {
  const upstream = createUpstream({ timeoutMs: 5000, ...voice });
  const notifySecret = secret ?? randomBytes(32).toString('base64url');
  try {
    const existing = secret ? await existingQueues(upstream) : new Map<string, string>();
    const byName = new Map<string, string>();
    for (const name of DEMO_QUEUE_NAMES) byName.set(name, existing.get(name) ?? (await createQueue(upstream, name, notifyUrl, notifySecret)));
    const offerId = byName.get(DEMO_OFFER_QUEUE_NAME);
    return { notifySecret, ids: [...byName.values()], offerIds: offerId ? [offerId] : [], named: [...byName].map(([name, id]) => ({ id, name })) };
  } catch (error) {
    log(`start-up: the demo's queues could not be made (${error instanceof HttpError ? error.code : error instanceof Error ? error.message : String(error)}); the support desk is off`);
    return null;
  }
}
