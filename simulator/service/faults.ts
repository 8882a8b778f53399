import { z } from 'zod';
import { parseControlInput } from '../http/control-input.js';

/**
 * Scripted faults of the simulator (docs/simulator.md, `POST /__sim/faults`): the next N requests that match a
 * method and path are answered badly, so tests can prove the page survives lost answers, slow answers,
 * errors, and a SIP socket dropped or stalled; and the next N queue webhooks of an event are lost or late, so
 * they can prove the integrator's server reconciles without them (spec 6.1: best effort, no retry).
 */

const method = z.enum(['GET', 'POST', 'DELETE', '*']);
/** A path below the simulator's root; `:param` matches one segment and a trailing `*` any rest. */
const path = z.string().regex(/^\/[^\s?#]*$/, 'must be a path such as /api/v1/voice/browser-calls/:id');
const count = z.number().int().min(1).max(1000).default(1);
const base = { method, path, count };
/** Which webhooks a webhook fault takes: spec 6.1's events (`*` either), of one queue or of any. */
const webhookBase = { event: z.enum(['call.received', 'call.ended', '*']), queueId: z.string().min(1).optional(), count };

/** A media path's impairment (`Impairment`), each figure bounded to what a network can do. */
const impairmentInput = z.strictObject({
  lossPercent: z.number().min(0).max(100).optional(),
  burstPackets: z.number().min(1).max(1000).optional(),
  delayMs: z.number().min(0).max(10_000).optional(),
  jitterMs: z.number().min(0).max(5_000).optional(),
  reorderPercent: z.number().min(0).max(100).optional(),
  rateKbps: z.number().min(1).max(1_000_000).optional(),
  queueMs: z.number().min(0).max(10_000).optional(),
});

/** The losses' seed when a `media-impair` fault names none: the same path every run. */
export const DEFAULT_IMPAIRMENT_SEED = 44;

export const faultInput = z.discriminatedUnion('fault', [
  /** Runs the request (the work is committed), then closes the connection without an answer. */
  z.strictObject({ ...base, fault: z.literal('drop-response') }),
  /** Waits before running the request. */
  z.strictObject({ ...base, fault: z.literal('delay'), delayMs: z.number().int().min(0).max(60_000) }),
  /** Answers with this error instead of running the request. */
  z.strictObject({
    ...base,
    fault: z.literal('error'),
    status: z.number().int().min(400).max(599),
    code: z.string().regex(/^[a-z0-9_]{1,64}$/),
    message: z.string().max(500).optional(),
    retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  }),
  /** Runs the request, then closes the SIP WebSocket of `sessionId` (or every one) from the server side. */
  z.strictObject({ ...base, fault: z.literal('close-sip-socket'), sessionId: z.string().min(1).optional() }),
  /**
   * Runs the request, then stalls the SIP WebSocket of `sessionId` (or every one): it stays open, takes nothing
   * in (keep-alive pings included) and sends nothing, as a path that died without closing, until the page
   * closes it; a new socket is served as usual.
   */
  z.strictObject({ ...base, fault: z.literal('stall-sip-socket'), sessionId: z.string().min(1).optional() }),
  /**
   * Runs the request, then drops every packet of the media path of `callId` (or of every call in progress),
   * RTP, DTLS and ICE checks, both ways, for `ms`.
   */
  z.strictObject({ ...base, fault: z.literal('media-blackhole'), ms: z.number().int().min(1).max(60_000), callId: z.string().min(1).optional() }),
  /**
   * Runs the request, then impairs the media of `callId` (or of every call in progress) in `direction` (default
   * both) as `impairment` says from then on, replacing what impaired it before; `null` lifts it. `seed` draws the
   * losses, so a run replays.
   */
  z.strictObject({
    ...base,
    fault: z.literal('media-impair'),
    callId: z.string().min(1).optional(),
    direction: z.enum(['to-browser', 'from-browser', 'both']).default('both'),
    impairment: impairmentInput.nullable(),
    seed: z.number().int().min(0).max(0xffffffff).default(DEFAULT_IMPAIRMENT_SEED),
  }),
  /** Runs the request, then restarts the SIP edge for `seconds`: every socket drops, and new ones are refused meanwhile. */
  z.strictObject({ ...base, fault: z.literal('edge-restart'), seconds: z.number().min(0).max(600) }),
  /**
   * Meant for `POST /browser-calls`: runs the request (the INVITE goes out), withdraws that call's INVITE
   * (CANCEL, the page's 487, the call `failed` with `invite_withdrawn`), and only then lets the answer go,
   * as built: the order seen behind a SIP proxy, INVITE, CANCEL, then the 202.
   */
  z.strictObject({ ...base, fault: z.literal('withdraw-invite') }),
  /**
   * A queue webhook (spec 6.1), not a request: the next `count` webhooks of `event` (`*`: either), of `queueId`
   * when given, are never sent, as a delivery the network lost (spec 6.1: one attempt, no retry).
   */
  z.strictObject({ ...webhookBase, fault: z.literal('drop-webhook') }),
  /**
   * As `drop-webhook`, but each is sent `delayMs` late, as it stood when emitted: past 5000 it comes after the
   * service's own attempt would have given up (spec 6.1's 5 s), so consumers have reconciled without it.
   */
  z.strictObject({ ...webhookBase, fault: z.literal('delay-webhook'), delayMs: z.number().int().min(1).max(60_000) }),
]);

export type Fault = z.infer<typeof faultInput>;
/** The faults of a queue webhook: they match an event, not a request. */
export type WebhookFault = Extract<Fault, { fault: 'drop-webhook' | 'delay-webhook' }>;
/** The faults of a request under `/api/`. */
export type RequestFault = Exclude<Fault, WebhookFault>;

type Armed =
  | { kind: 'request'; fault: RequestFault; pattern: RegExp; remaining: number }
  | { kind: 'webhook'; fault: WebhookFault; remaining: number };

const isWebhookFault = (fault: Fault): fault is WebhookFault => fault.fault === 'drop-webhook' || fault.fault === 'delay-webhook';

function compile(path: string): RegExp {
  const escaped = path
    .split('/')
    .map((segment) => (segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}

export class FaultPlan {
  private armed: Armed[] = [];

  /** Arms a fault; returns what is armed now. */
  add(input: unknown): Fault {
    const fault = parseControlInput(faultInput, input);
    this.armed.push(isWebhookFault(fault) ? { kind: 'webhook', fault, remaining: fault.count } : { kind: 'request', fault, pattern: compile(fault.path), remaining: fault.count });
    return fault;
  }

  /** Takes the first armed fault matching this request, counting it down. */
  take(requestMethod: string, requestPath: string): RequestFault | undefined {
    const armed = this.takeFirst(
      (armed) => armed.kind === 'request' && (armed.fault.method === '*' || armed.fault.method === requestMethod) && armed.pattern.test(requestPath),
    );
    return armed?.kind === 'request' ? armed.fault : undefined;
  }

  /** Takes the first armed webhook fault matching a webhook of `event` for `queueId`, counting it down. */
  takeWebhook(event: string, queueId: string): WebhookFault | undefined {
    const armed = this.takeFirst(
      (armed) => armed.kind === 'webhook' && (armed.fault.event === '*' || armed.fault.event === event) && (armed.fault.queueId === undefined || armed.fault.queueId === queueId),
    );
    return armed?.kind === 'webhook' ? armed.fault : undefined;
  }

  private takeFirst(matches: (armed: Armed) => boolean): Armed | undefined {
    const index = this.armed.findIndex(matches);
    const armed = this.armed[index];
    if (!armed) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.armed.splice(index, 1);
    return armed;
  }

  list(): Array<Fault & { remaining: number }> {
    return this.armed.map((armed) => ({ ...armed.fault, remaining: armed.remaining }));
  }

  clear(): void {
    this.armed = [];
  }
}
