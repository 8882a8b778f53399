import type { BrowserCall } from '../../../simulator/service/model.js';
import type { Fetch } from './harness.js';

/**
 * Calls overlaid on the in-process simulator, which rings a call only to a SIP-registered agent: tests that
 * need a call to read or hang up list it here.
 */

/** A call as a service may return it; `externalSubject` is optional so the session fallback can be tested. */
export type CallRecord = Omit<BrowserCall, 'externalSubject'> & { externalSubject?: string };

/** A call record as the service would return it. */
export function callRecord(id: string, fields: Partial<BrowserCall>): CallRecord {
  return {
    id,
    sessionId: 'bs_unused',
    agentId: 'ag_unused',
    externalSubject: 'alice',
    from: '+12025550199',
    to: '+12025550100',
    state: 'connected',
    busy: true,
    endReason: null,
    error: null,
    maxDurationSeconds: null,
    record: false,
    customData: {},
    createdAt: '2025-01-01T00:00:00.000Z',
    answeredAt: '2025-01-01T00:00:01.000Z',
    endedAt: null,
    revision: 3,
    ...fields,
  };
}

/**
 * The simulator rings a call only to a SIP-registered agent, so these tests overlay calls on it: reads and
 * hangups of the listed ids are answered from the table (a hangup moves the call to `ending`), and every
 * other request reaches the real simulator.
 */
export function withCalls(calls: Map<string, CallRecord>): (simulator: Fetch) => Fetch {
  return (simulator) => async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const match = /^\/api\/v1\/voice\/browser-calls\/([^/]+)(\/hangup)?$/.exec(url.pathname);
    const call = match?.[1] === undefined ? undefined : calls.get(decodeURIComponent(match[1]));
    if (!match || !call) return simulator(input, init);
    if (match[2]) {
      const ending = { ...call, state: 'ending' as const, revision: call.revision + 1 };
      calls.set(call.id, ending);
      return Response.json({ call: ending }, { status: 202 });
    }
    return Response.json({ call });
  };
}
