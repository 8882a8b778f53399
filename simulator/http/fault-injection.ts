import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import { errorResponse, HttpError } from '../../contract/http-error.js';
import type { MediaDirection } from '../media/impairment.js';
import type { FaultPlan, RequestFault } from '../service/faults.js';
import type { VoiceService } from '../service/voice-service.js';

/**
 * Where the armed faults (`FaultPlan`, `POST /__sim/faults`) meet the requests under `/api/`: each request that
 * matches one is answered badly, in the way the fault names, so tests can prove the page survives it.
 */

/**
 * The `withdraw-invite` fault's work once the request ran: withdraws the INVITE of the call a 2xx answer names
 * (`call.id` of its JSON body). Any other answer placed no call, and an INVITE the page already answered can no
 * longer be withdrawn: both are let go as they are.
 */
async function withdrawInviteOf(service: VoiceService, response: Response): Promise<void> {
  if (!response.ok) return;
  const body: unknown = await response.clone().json().catch(() => undefined);
  const call = typeof body === 'object' && body !== null && 'call' in body ? body.call : undefined;
  const id = typeof call === 'object' && call !== null && 'id' in call && typeof call.id === 'string' ? call.id : undefined;
  if (id === undefined) return;
  try {
    await service.withdrawInvite(id);
  } catch (error) {
    if (!(error instanceof HttpError && error.code === 'invite_not_ringing')) throw error;
  }
}

/** The `media-impair` fault's work once the request ran: each direction it names, its own seed so they differ. */
function impairOf(service: VoiceService, fault: Extract<RequestFault, { fault: 'media-impair' }>): void {
  const directions: MediaDirection[] = fault.direction === 'both' ? ['to-browser', 'from-browser'] : [fault.direction];
  directions.forEach((direction, i) => service.calls.impairMedia(direction, fault.impairment ?? undefined, (fault.seed + i) >>> 0, fault.callId));
}

/**
 * Middleware that applies the first armed fault matching the request, if any; mount it on `/api/*` under
 * @hono/node-server, whose socket `drop-response` destroys. A switch with one case per kind of fault.
 */
export function injectFaults(faults: FaultPlan, service: VoiceService): MiddlewareHandler<{ Bindings: HttpBindings }> {
  return async (c, next) => {
    const fault = faults.take(c.req.method, c.req.path);
    if (!fault) return next();
    switch (fault.fault) {
      case 'error': {
        const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
        return errorResponse(new HttpError(fault.status, fault.code, fault.message ?? 'injected by POST /__sim/faults', headers));
      }
      case 'delay':
        await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
        return next();
      case 'drop-response':
        // The work is done; the answer is lost on the way (spec 7: the caller keeps its key and retries).
        await next();
        c.env.incoming.socket.destroy();
        return;
      case 'close-sip-socket':
        await next();
        service.closeSipSockets(fault.sessionId);
        return;
      case 'stall-sip-socket':
        await next();
        service.stallSipSockets(fault.sessionId);
        return;
      case 'edge-restart':
        await next();
        service.sip.restartEdge(fault.seconds * 1000);
        return;
      case 'media-blackhole':
        await next();
        service.calls.blackholeMedia(fault.ms, fault.callId);
        return;
      case 'media-impair':
        await next();
        impairOf(service, fault);
        return;
      case 'withdraw-invite':
        await next();
        // The answer, as built, waits until the CANCEL was answered and the call failed: INVITE, CANCEL,
        // then the 202, the order seen behind a SIP proxy.
        await withdrawInviteOf(service, c.res);
        return;
    }
  };
}
