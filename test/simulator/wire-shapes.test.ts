import { describe, expect, it } from 'vitest';
import type { BrowserCall as PageCall, SessionTransport as PageTransport } from '../../lib/core/types.js';
import { BROWSER_CALL_STATES, TERMINAL_CALL_STATES, type BrowserCallRecord, type BrowserCallStateName } from '../../contract/browser-call.js';
import { TERMINAL_STATES, type BrowserCall, type SessionTransport } from '../../simulator/service/model.js';
import type { z } from 'zod';
import type { InboundCallRecord, SimulatedCall, SimulatedCallRecord, SimulatorEdge, SimulatorEdgeInput, SimulatorEdgeProfile, SimulatorFault } from '../../simulator/http/control-client.js';
import { EDGE_PROFILES, type EdgeProfile } from '../../simulator/sip/edge/edge-profile.js';
import type { EdgeView, edgeInput } from '../../simulator/sip/edge/edge-state.js';
import type { QueueCallRecord } from '../../contract/queue-call.js';
import type { faultInput } from '../../simulator/service/faults.js';
import type { VoiceService } from '../../simulator/service/voice-service.js';
import { callRecord } from '../server-proxy/support/calls-overlay.js';

/**
 * The simulator writes what the page library reads: its exact wire shapes are assignable to the library's
 * tolerant ones (a field renamed on one side stops `npm run typecheck`), and the call states are one list.
 */

const transport: SessionTransport = {
  websocketUrl: 'ws://127.0.0.1:1/sip',
  sipUri: 'sip:agent@127.0.0.1',
  authorizationUsername: 'agent',
  authorizationPassword: 'secret',
  realm: 'simulator',
  registrationExpiresSeconds: 600,
  iceServers: [],
  expiresAt: '2026-11-24T00:00:00.000Z',
};

/** The package's public control types, written out so they reach nothing of werift, are the control API's own. */
type Inspected = NonNullable<ReturnType<VoiceService['inspectCall']>>;
const asPublicCall = (inspected: Inspected): SimulatedCall => inspected;
const asPublicFault = (fault: z.input<typeof faultInput>): SimulatorFault => fault;
const asFaultInput = (fault: SimulatorFault): z.input<typeof faultInput> => fault;
// The package's call records are the contract's, both ways (a field written out again would drift).
const asPublicInbound = (record: QueueCallRecord): InboundCallRecord => record;
const asContractInbound = (record: InboundCallRecord): QueueCallRecord => record;
const asPublicRecord = (record: BrowserCallRecord): SimulatedCallRecord => record;
const asContractRecord = (record: SimulatedCallRecord): BrowserCallRecord => record;
const asPublicEdge = (edge: EdgeView): SimulatorEdge => edge;
const asPublicProfile = (profile: EdgeProfile): SimulatorEdgeProfile => profile;
const asProfile = (profile: SimulatorEdgeProfile): EdgeProfile => profile;
const asEdgeInput = (edge: SimulatorEdgeInput): z.input<typeof edgeInput> => edge;

describe('the wire between simulator and page', () => {
  it("reads the simulator's session transport and call as the page library's", () => {
    const read: PageTransport = { ...transport };
    const call: BrowserCall = { ...callRecord('bc_1', {}), externalSubject: 'user' };
    // The contract's record, as the service writes it, is what the page library's tolerant reading takes
    // (spread: an interface meets an index signature only as an object literal).
    const page: PageCall = { ...asContractRecord(asPublicRecord(call)) };
    expect(read.websocketUrl).toBe(transport.websocketUrl);
    expect(page).toEqual(call);
    expect(page.state).toBe('connected');
  });

  it('ends calls in the states the page library treats as terminal, from the one list of the contract', () => {
    expect(TERMINAL_STATES).toBe(TERMINAL_CALL_STATES);
    for (const state of TERMINAL_STATES) expect(BROWSER_CALL_STATES).toContain(state);
    // The control API's record names its state by the same list (checked by tsc).
    const record: SimulatedCallRecord = { ...callRecord('bc_1', {}), externalSubject: 'user' };
    const state: BrowserCallStateName = record.state;
    expect(BROWSER_CALL_STATES).toContain(state);
  });

  it("reads the control API's answers as the package's public types (checked by tsc)", () => {
    const fault: SimulatorFault = { method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'drop-response' };
    expect(asPublicFault(asFaultInput(fault))).toEqual(fault);
    expect(typeof asPublicCall).toBe('function');
    const inbound: QueueCallRecord = { id: 'c_1', direction: 'inbound', queueId: 'q_1', from: '+12025550121', to: '+12025550150', state: 'queued', agentId: null, createdAt: '2026-11-26T10:00:00.000Z', answeredAt: null, endedAt: null };
    expect(asContractInbound(asPublicInbound(inbound))).toEqual(inbound);
    expect(EDGE_PROFILES.map((profile) => asProfile(asPublicProfile(profile)))).toEqual(['kamailio', 'no-crlf-pong', 'asterisk', 'carrier-sbc']);
    expect(asEdgeInput({ profile: 'asterisk', sessionExpiresSeconds: 4 })).toEqual({ profile: 'asterisk', sessionExpiresSeconds: 4 });
    expect(typeof asPublicEdge).toBe('function');
  });
});
