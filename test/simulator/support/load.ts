import type { Invitation } from 'sip.js';
import type { CallFacts } from '../../../simulator/calls/call-facts.js';
import type { MediaCounts } from '../../../simulator/media/media.js';
import type { BrowserCall, BrowserSession, SessionTransport } from '../../../simulator/service/model.js';
import { sleep, waitFor, type SimulatorApi } from './sim-api.js';
import type { SipClient } from './sip-client.js';
import { WeriftSessionDescriptionHandler } from './werift-sdh.js';

/**
 * A load on the simulator as many pages would make it: `sessions` browser sessions, each registered by its own
 * SIP.js user agent over its own WebSocket, then `calls` of them calling +12025550100 at once with real
 * WebRTC audio both ways (werift answers for the page and sends a microphone's 50 packets a second). Shared by
 * the concurrency test, which asserts what happened, and by one-off measurements, which time it.
 */

export interface LoadOptions {
  sessions: number;
  calls: number;
  /** Between two call starts: pages do not all click in the same millisecond. */
  staggerMs: number;
  /** RTP packets each call must have carried each way, at the simulator and at the page, before hanging up. */
  packetsEachWay: number;
  /** How long to keep every call talking once all of them carry audio; default 0. */
  holdMs?: number;
  /** Starts a SIP.js client with werift media for a session; the caller stops it. */
  openClient(transport: SessionTransport): Promise<SipClient>;
  /** Told when every agent is registered, when every call carries audio both ways, and when all have ended. */
  onPhase?(phase: LoadPhase): void;
}

export type LoadPhase = 'registered' | 'talking' | 'hanging-up' | 'ended';

/** One call of the load, as the simulator and the page saw it. */
export interface LoadCall {
  call: BrowserCall;
  facts: CallFacts;
  media: MediaCounts | null;
  /** RTP packets the page received and sent. */
  pageReceived: number;
  pageSent: number;
}

export interface LoadResult {
  sessions: BrowserSession[];
  /** The final status of each session's REGISTER, in session order. */
  registerStatuses: number[];
  /** The status of each POST /browser-calls. */
  createStatuses: number[];
  /** Each call once it ended, in start order. */
  calls: LoadCall[];
}

/** Polls gently: ten calls polled every 20 ms would be most of the load. */
const POLL_MS = 100;

/** Runs `task` over `items`, at most `width` at a time, answering the results in order. */
async function inBatches<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width) results.push(...(await Promise.all(items.slice(i, i + width).map((item, j) => task(item, i + j)))));
  return results;
}

export async function runLoad(api: SimulatorApi, options: LoadOptions): Promise<LoadResult> {
  const subjects = Array.from({ length: options.sessions }, (_, i) => `load-${i}-${Date.now()}`);
  const opened = await inBatches(subjects, 10, (subject) => api.openSession(subject));
  const registered = await Promise.all(
    opened.map(async ({ transport }) => {
      const client = await options.openClient(transport);
      const response = await client.register(client.registerer(transport.registrationExpiresSeconds));
      return { client, status: response.statusCode ?? 0 };
    }),
  );

  options.onPhase?.('registered');
  const createStatuses: number[] = [];
  const started: Array<{ callId: string; invitation: Invitation; sdh: WeriftSessionDescriptionHandler }> = [];
  await Promise.all(
    registered.slice(0, options.calls).map(async ({ client }, i) => {
      await sleep(i * options.staggerMs);
      const invited = client.nextInvitation();
      const created = await api.startCall(opened[i]?.session.id ?? '', '+12025550100');
      createStatuses[i] = created.status;
      if (created.status !== 202) return;
      const invitation = await invited;
      await invitation.accept();
      const sdh = invitation.sessionDescriptionHandler;
      if (!(sdh instanceof WeriftSessionDescriptionHandler)) throw new Error('the load needs werift media');
      sdh.startAudio();
      started[i] = { callId: created.body.call.id, invitation, sdh };
    }),
  );
  const running = started.filter((entry) => entry !== undefined);

  // Every call connected, with audio both ways at both ends, before any hangs up: they all overlap.
  await Promise.all(
    running.map(({ callId, sdh }) =>
      waitFor(
        async () => {
          if (sdh.packetsReceived < options.packetsEachWay) return undefined;
          const { call, media } = await api.inspect(callId);
          const flowing = call.state === 'connected' && (media?.packetsFromBrowser ?? 0) >= options.packetsEachWay && (media?.packetsToBrowser ?? 0) >= options.packetsEachWay;
          return flowing ? true : undefined;
        },
        `call ${callId} to connect with audio both ways`,
        // Every handshake and stream in JavaScript at once: sized for a loaded machine, where they take far longer.
        120_000,
        POLL_MS,
      ),
    ),
  );
  options.onPhase?.('talking');
  await sleep(options.holdMs ?? 0);
  options.onPhase?.('hanging-up');
  await Promise.all(running.map(({ callId }) => api.hangup(callId)));
  const calls = await Promise.all(
    running.map(async ({ callId, sdh }) => {
      await api.waitForCall(callId, (call) => !call.busy, `call ${callId} to end`);
      const inspected = await api.inspect(callId);
      return { ...inspected, pageReceived: sdh.packetsReceived, pageSent: sdh.packetsSent };
    }),
  );
  options.onPhase?.('ended');
  return { sessions: opened.map(({ session }) => session), registerStatuses: registered.map(({ status }) => status), createStatuses, calls };
}
