import { z } from 'zod';
import { parseControlInput } from './control-input.js';

/**
 * Scripted faults of the simulator (DESIGN.md, `POST /__sim/faults`): the next N requests that match a
 * method and path are answered badly, so tests can prove the page survives lost answers, slow answers,
 * errors, and a SIP socket dropped or stalled.
 */

const method = z.enum(['GET', 'POST', 'DELETE', '*']);
/** A path below the simulator's root; `:param` matches one segment and a trailing `*` any rest. */
const path = z.string().regex(/^\/[^\s?#]*$/, 'must be a path such as /api/v1/voice/browser-calls/:id');
const base = { method, path, count: z.number().int().min(1).max(1000).default(1) };

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
   * Meant for `POST /browser-calls`: runs the request (the INVITE goes out), withdraws that call's INVITE
   * (CANCEL, the page's 487, the call `failed` with `invite_withdrawn`), and only then lets the answer go,
   * as built: the order seen behind a SIP proxy, INVITE, CANCEL, then the 202.
   */
  z.strictObject({ ...base, fault: z.literal('withdraw-invite') }),
]);

export type Fault = z.infer<typeof faultInput>;

interface Armed {
  fault: Fault;
  pattern: RegExp;
  remaining: number;
}

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
    this.armed.push({ fault, pattern: compile(fault.path), remaining: fault.count });
    return fault;
  }

  /** Takes the first armed fault matching this request, counting it down. */
  take(requestMethod: string, requestPath: string): Fault | undefined {
    const index = this.armed.findIndex(
      (armed) => (armed.fault.method === '*' || armed.fault.method === requestMethod) && armed.pattern.test(requestPath),
    );
    const armed = this.armed[index];
    if (!armed) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.armed.splice(index, 1);
    return armed.fault;
  }

  list(): Array<Fault & { remaining: number }> {
    return this.armed.map((armed) => ({ ...armed.fault, remaining: armed.remaining }));
  }

  clear(): void {
    this.armed = [];
  }
}
