import { SimulatorApi, sleep, waitFor } from '../test/simulator/support/sim-api.js';
import { SipClient } from '../test/simulator/support/sip-client.js';
import { WeriftSessionDescriptionHandler } from '../test/simulator/support/werift-sdh.js';

/**
 * The load of the simulator's capacity part (`simulator`): its pages, SIP.js user agents in this process,
 * one per browser session, each over its own WebSocket and answering with werift (test/simulator/support),
 * as the concurrency test drives them. Every wait has a deadline, and {@link closePages} ends whatever was
 * opened, even half-way.
 */

/** One page of the load: its session, its SIP.js agent, and once called, its call. */
export interface Page {
  sessionId: string;
  client: SipClient;
  callId?: string;
  sdh?: WeriftSessionDescriptionHandler;
  /** POST /browser-calls sent to the INVITE in the page's hands. */
  inviteMs?: number;
}

const ANSWER_AT_ONCE = '+12025550100';
/** Past this, a step of set-up has failed rather than being slow. */
export const SETUP_MS = 30_000;
/** What each call must have carried each way, at both ends, before it counts as talking (1 s of audio). */
const PACKETS_EACH_WAY = 50;

/** Rejects naming `what` if `work` takes over {@link SETUP_MS}. */
async function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${SETUP_MS} ms`)), SETUP_MS)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Opens `count` sessions, ten at a time, each with a registered agent, into `pages` as they start (so the
 * caller can close them all if one fails).
 */
export async function openPages(api: SimulatorApi, count: number, tag: string, pages: Page[]): Promise<void> {
  for (let i = 0; i < count; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, async (_, j) => {
        const { session, transport } = await api.openSession(`bench-${tag}-${i + j}-${Date.now()}`);
        const client = await SipClient.start(transport, { media: 'werift' });
        pages.push({ sessionId: session.id, client });
        const registered = await within(client.register(client.registerer(transport.registrationExpiresSeconds)), 'REGISTER');
        if (registered.statusCode !== 200) throw new Error(`REGISTER answered ${registered.statusCode}`);
      }),
    );
  }
}

/** Calls from the page, answers the INVITE with werift and starts its microphone; times POST to INVITE. */
export async function call(api: SimulatorApi, page: Page): Promise<void> {
  const sent = performance.now();
  const invited = page.client.nextInvitation().then((invitation) => ({ invitation, at: performance.now() }));
  const created = await api.startCall(page.sessionId, ANSWER_AT_ONCE);
  if (created.status !== 202) throw new Error(`POST /browser-calls answered ${created.status} ${created.body.code ?? ''}`);
  page.callId = created.body.call.id;
  const { invitation, at } = await within(invited, 'the INVITE');
  page.inviteMs = at - sent;
  await within(invitation.accept(), 'answering the INVITE');
  const sdh = invitation.sessionDescriptionHandler;
  if (!(sdh instanceof WeriftSessionDescriptionHandler)) throw new Error('the load needs werift media');
  sdh.startAudio();
  page.sdh = sdh;
}

/** Whether the page's call is connected with audio both ways at both ends, within {@link SETUP_MS}. */
export async function flowing(api: SimulatorApi, page: Page, pollMs: number): Promise<boolean> {
  const { callId, sdh } = page;
  if (!callId || !sdh) return false;
  return waitFor(
    async () => {
      if (sdh.packetsReceived < PACKETS_EACH_WAY) return undefined;
      const { call: read, media } = await api.inspect(callId);
      const both = (media?.packetsFromBrowser ?? 0) >= PACKETS_EACH_WAY && (media?.packetsToBrowser ?? 0) >= PACKETS_EACH_WAY;
      return read.state === 'connected' && both ? true : undefined;
    },
    `call ${callId} to carry audio both ways`,
    SETUP_MS,
    pollMs,
  ).catch(() => false);
}

/** Hangs up every call, waits for each to end, and stops each agent: nothing of a step outlives it. */
export async function closePages(api: SimulatorApi, pages: readonly Page[]): Promise<void> {
  const calls = pages.flatMap((page) => (page.callId ? [page.callId] : []));
  await Promise.all(calls.map((id) => api.hangup(id).catch(() => undefined)));
  await Promise.all(calls.map((id) => api.waitForCall(id, (read) => !read.busy, `call ${id} to end`).catch(() => undefined)));
  // Unregisters, closes its WebSocket and its peer connection.
  await Promise.all(pages.map((page) => page.client.stop().catch(() => undefined)));
}

/** Starts every page's call `staggerMs` apart (pages do not all click in the same millisecond). */
export async function callAll(api: SimulatorApi, pages: readonly Page[], staggerMs: number): Promise<boolean[]> {
  return Promise.all(
    pages.map(async (page, i) => {
      await sleep(i * staggerMs);
      return call(api, page).then(
        () => true,
        (error: unknown) => (console.error(`  simulator bench: a call of ${pages.length} did not start: ${String(error)}`), false),
      );
    }),
  );
}
