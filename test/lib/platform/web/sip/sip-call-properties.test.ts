// @vitest-environment happy-dom
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../../../../lib/platform/web/system-clock.js';
import { parts as sipAdapter } from '../../../../../lib/connect.js';
import { FakeBackend } from '../../../../../lib/testing/fake-backend.js';
import type { VoiceBrowser } from '../../../../../lib/core/helper-types.js';
import { createVoiceBrowserWith } from '../../../../../lib/voice-browser.js';
import { FakeSipSockets } from '../../../../support/fake-sip-socket.js';
import { fakeWebRtc, type FakeWebRtc } from '../../../../support/fake-webrtc.js';
import { EdgeDialog, edgeSdp, header, type RawSipWorld } from '../../../../support/raw-sip.js';
import { sipLinkWorld, wait } from '../../../../support/sip-link-world.js';

/**
 * Property run: the real helper on the real link (sip-adapter.ts over SIP.js's core) against a random edge
 * speaking raw SIP, on fake timers and fake WebRTC. The edge offers queue callers by INVITEs of every shape edges
 * send (plain, `Require: 100rel` PRACKed or not, with `Expires`, offerless, SDP beside ISUP, requiring an
 * extension the page lacks) and CANCELs them at any moment; the page accepts (its microphone prompt answered at
 * once or later), declines or lets it ring; in the call the far end holds (sendonly, inactive) and resumes,
 * refreshes the session by re-INVITE, crosses the page's ICE restart with its own re-INVITE (RFC 3261 section 14:
 * each side's answered 491), the socket drops, either side hangs up, the page disconnects. The edge answers what
 * the page sends as a sound edge does. Invariants:
 * - every INVITE delivered to the page gets exactly one final response (RFC 3261 section 17.2.1);
 * - while the far end holds, the call shows no failure (RFC 3264 section 8.4: a hold is no lost path);
 * - once a call ended (either side's BYE, and the service read so), the helper is not busy;
 * - no microphone track is live without a call at the end;
 * - nothing thrown reaches the page.
 * `PROPERTY_RUNS` sets how many edges run (default 30).
 */

type InviteShape = 'plain' | 'prack' | 'unprackd' | 'expires' | 'offerless' | 'multipart' | 'unknown';
type Step =
  | { kind: 'invite'; shape: InviteShape }
  | { kind: 'accept'; prompt: boolean }
  | { kind: 'decline' }
  | { kind: 'release' }
  | { kind: 'cancel' }
  | { kind: 'hold'; direction: 'sendonly' | 'inactive' | 'sendrecv' }
  | { kind: 'refresh' }
  | { kind: 'glare'; ms: number }
  | { kind: 'drop' }
  | { kind: 'bye' }
  | { kind: 'hangup' }
  | { kind: 'advance'; ms: number };

const advance = (min: number, max: number) => fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min, max }) });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });

/** What happens in an answered call, in any order. */
const IN_CALL: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('hold' as const), direction: fc.constantFrom('sendonly' as const, 'inactive' as const, 'sendrecv' as const) }) },
  fc.record({ kind: fc.constant('refresh' as const) }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('glare' as const), ms: fc.integer({ min: 0, max: 600 }) }) },
  fc.record({ kind: fc.constant('drop' as const) }),
  { weight: 2, arbitrary: advance(50, 20_000) },
);

/** One call from the edge: its INVITE, the page's move and the edge's CANCEL at random moments, what happens in it, its end. */
const CALL: fc.Arbitrary<Step[]> = fc
  .record({
    shape: fc.constantFrom<InviteShape>('plain', 'prack', 'unprackd', 'expires', 'offerless', 'multipart', 'unknown'),
    before: maybe(advance(0, 8000)),
    page: fc.constantFrom<Step[]>([{ kind: 'accept', prompt: false }], [{ kind: 'accept', prompt: true }], [{ kind: 'decline' }], []),
    cancel: fc.constantFrom('never', 'before', 'during', 'after'),
    prompt: advance(0, 3000),
    inCall: fc.array(IN_CALL, { maxLength: 6 }),
    end: fc.constantFrom<Step[]>([{ kind: 'bye' }], [{ kind: 'hangup' }], [{ kind: 'drop' }], []),
  })
  .map(({ shape, before, page, cancel, prompt, inCall, end }) => [
    { kind: 'invite' as const, shape },
    ...(before ? [before] : []),
    ...(cancel === 'before' ? [{ kind: 'cancel' as const }] : []),
    ...page,
    ...(cancel === 'during' ? [{ kind: 'cancel' as const }] : []),
    prompt,
    { kind: 'release' as const },
    { kind: 'advance' as const, ms: 3000 },
    ...(cancel === 'after' ? [{ kind: 'cancel' as const }] : []),
    ...inCall,
    ...end,
  ]);

const MULTIPART = ['--b1', 'Content-Type: application/sdp', '', edgeSdp().trimEnd(), '--b1', 'Content-Type: application/ISUP; version=nxv3', 'Content-Disposition: signal; handling=optional', '', 'isup', '--b1--', ''].join('\r\n');

/** One call as the edge keeps it: its dialog, the service's caller, and the edge's transactions in it. */
interface EdgeCall {
  dialog: EdgeDialog;
  callerId: string;
  /** The branch of each INVITE the edge sent, by CSeq: its CANCEL and its non-2xx ACK go on it. */
  branches: Map<number, string>;
  prack: boolean;
  answered: boolean;
  ended: boolean;
  /** The CSeq of the edge's re-INVITE not yet answered. */
  pending?: number;
  direction: 'sendonly' | 'inactive' | 'sendrecv';
  version: number;
}

/** The edge: delivers raw SIP on the page's newest socket, answers what the page sends, counts the final responses. */
function rawEdge(sockets: FakeSipSockets, rtc: FakeWebRtc, backend: FakeBackend) {
  const world = { sockets, rtc, inject: (message: string) => sockets.last.receive(message) } as unknown as RawSipWorld;
  const calls: EdgeCall[] = [];
  /** The distinct final responses the page sent to each delivered INVITE, by `Call-ID CSeq`. */
  const finals = new Map<string, string[]>();
  const read = new Map<object, number>();
  const racked = new Set<string>();
  let branchCount = 0;
  const open = () => sockets.last.readyState === 1;

  function invite(call: EdgeCall, headers: string[], body: string, contentType?: string, cseq = 1): boolean {
    if (!open()) return false;
    const branch = `z9hG4bKedge${++branchCount}`;
    call.branches.set(cseq, branch);
    finals.set(`${call.dialog.callId} ${cseq}`, []);
    world.inject(call.dialog.request('INVITE', headers, body, contentType, branch, cseq));
    return true;
  }

  function onResponse(call: EdgeCall, message: string): void {
    const code = Number(message.split(' ')[1]);
    const [number, method] = (header(message, 'CSeq') ?? '').split(' ');
    const cseq = Number(number);
    if (method !== 'INVITE') return;
    if (code === 180 && call.prack && header(message, 'RSeq') && !racked.has(`${call.dialog.callId} ${header(message, 'RSeq')}`)) {
      racked.add(`${call.dialog.callId} ${header(message, 'RSeq')}`);
      call.dialog.response(180);
      call.dialog.send('PRACK', [`RAck: ${header(message, 'RSeq')} ${cseq} INVITE`]);
    }
    if (code < 200) return;
    const key = `${call.dialog.callId} ${cseq}`;
    const seen = finals.get(key);
    // A retransmission is the same message again (RFC 3261 section 17.2.1); another final response differs.
    if (seen && !seen.includes(message)) seen.push(message);
    if (call.pending === cseq) call.pending = undefined;
    if (code < 300) {
      call.dialog.response(code);
      if (cseq === 1) call.answered = true;
      call.dialog.ack(cseq);
    } else {
      world.inject(call.dialog.request('ACK', [], '', undefined, call.branches.get(cseq), cseq));
      if (cseq === 1) call.ended = true;
    }
  }

  function onRequest(call: EdgeCall, message: string): void {
    if (message.startsWith('BYE ')) {
      call.dialog.answer(message, '200 OK');
      call.ended = true;
      backend.setQueueCall(call.callerId, { state: 'finished' });
    } else if (message.startsWith('INVITE ')) {
      // RFC 3261 section 14.1: our own re-INVITE still out, the page's crossing one is answered 491.
      if (call.pending !== undefined) call.dialog.answer(message, '491 Request Pending');
      else call.dialog.answer(message, '200 OK', edgeSdp(call.direction, ++call.version));
    }
  }

  /** Answers what the page sent since the last look, as a sound edge does. */
  function serve(): void {
    for (const socket of sockets.opened) {
      const from = read.get(socket) ?? 0;
      read.set(socket, socket.sent.length);
      for (const message of socket.sent.slice(from)) {
        const call = calls.find((each) => each.dialog.callId === header(message, 'Call-ID'));
        if (!call) continue;
        if (message.startsWith('SIP/2.0 ')) onResponse(call, message);
        else onRequest(call, message);
      }
    }
  }

  function dialog(): EdgeDialog {
    const register = sockets.opened[0]?.sent.find((message) => message.startsWith('REGISTER '));
    const contact = /<([^>]+)>/.exec(header(register, 'Contact') ?? '')?.[1] ?? '';
    return new EdgeDialog(world, contact);
  }

  return { world, calls, finals, invite, serve, dialog, open };
}

describe('a call against a random edge', () => {
  sipLinkWorld();

  it('answers every INVITE once, never fails a held call, lets go of the microphone and the call, and throws nothing at the page', async () => {
    const thrown: unknown[] = [];
    const record = (error: unknown) => void thrown.push(error);
    process.on('unhandledRejection', record);
    window.addEventListener('error', record);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(CALL, { minLength: 1, maxLength: 3 }), fc.boolean(), async (calls, hangupFirst) => {
          await run(calls.flat(), hangupFirst, thrown);
        }),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 30) },
      );
    } finally {
      process.off('unhandledRejection', record);
      window.removeEventListener('error', record);
    }
  });
});

async function run(steps: Step[], hangupFirst: boolean, thrown: unknown[]): Promise<void> {
  const sockets = new FakeSipSockets();
  vi.stubGlobal('WebSocket', sockets.WebSocket);
  const rtc = fakeWebRtc();
  const backend = new FakeBackend();
  const voice: VoiceBrowser = createVoiceBrowserWith({ backend }, { clock: systemClock, sipParts: sipAdapter, tabs: null });
  const connecting = voice.connect();
  await wait(0);
  await connecting;
  const edge = rawEdge(sockets, rtc, backend);
  const settle = async (ms: number) => {
    for (let left = ms; left > 0; left -= 100) {
      await wait(Math.min(100, left));
      edge.serve();
    }
    edge.serve();
  };
  const live = () => edge.calls.filter((call) => !call.ended);
  const current = () => live().at(-1);
  const check = (where: string) => {
    expect(thrown, where).toEqual([]);
    const call = current();
    if (call?.answered && call.direction !== 'sendrecv') {
      const status = voice.status();
      expect(status.audio, `${where}: held`).not.toBe('failed');
      expect(status.error?.code ?? 'none', `${where}: held`).toMatch(/^(none|no_active_call)$/);
    }
  };

  for (const [index, step] of steps.entries()) {
    const where = `step ${index} ${JSON.stringify(step)}`;
    await act(step);
    await settle(200);
    check(where);
  }

  // The end: the page hangs up (or not) and disconnects; the edge and the service follow.
  if (hangupFirst) await act({ kind: 'hangup' });
  rtc.releaseMicrophone();
  await settle(5000);
  if (hangupFirst || live().every((call) => !call.answered)) {
    for (const call of edge.calls) if (call.ended) backend.setQueueCall(call.callerId, { state: 'finished' });
    await settle(10_000);
    if (live().every((call) => !call.answered)) expect(voice.status().busy, 'busy once every call ended').toBe(false);
  }
  const disconnecting = voice.disconnect().catch(() => undefined);
  await settle(40_000);
  await disconnecting;
  expect(thrown, 'end').toEqual([]);
  for (const [key, responses] of edge.finals) expect(responses, `final responses to the INVITE ${key}`).toHaveLength(1);
  expect(rtc.tracks.filter((track) => track.readyState === 'live'), 'microphone left live').toEqual([]);

  async function act(step: Step): Promise<void> {
    const call = current();
    switch (step.kind) {
      case 'invite': {
        const caller = backend.offer('q-support', '+12025550121');
        const made: EdgeCall = { dialog: edge.dialog(), callerId: caller.id, branches: new Map(), prack: step.shape === 'prack', answered: false, ended: false, direction: 'sendrecv', version: 1 };
        const headers = [`X-Call-Id: ${caller.id}`];
        if (step.shape === 'prack' || step.shape === 'unprackd') headers.push('Require: 100rel', 'Supported: 100rel');
        if (step.shape === 'expires') headers.push('Expires: 5');
        if (step.shape === 'unknown') headers.push('Require: precondition');
        const body = step.shape === 'offerless' ? '' : step.shape === 'multipart' ? MULTIPART : edgeSdp();
        edge.calls.push(made);
        if (!edge.invite(made, headers, body, step.shape === 'multipart' ? 'multipart/mixed;boundary=b1' : undefined)) made.ended = true;
        return;
      }
      case 'accept':
        rtc.holdMicrophone = step.prompt;
        void voice.accept().catch(() => undefined);
        return;
      case 'decline':
        return void voice.decline().catch(() => undefined);
      case 'release':
        return rtc.releaseMicrophone();
      case 'cancel':
        if (call && !call.answered && edge.open()) edge.world.inject(call.dialog.request('CANCEL', [], '', undefined, call.branches.get(1), 1));
        return;
      case 'hold':
      case 'refresh': {
        if (!call?.answered || call.pending !== undefined || !edge.open()) return;
        const direction = step.kind === 'hold' ? step.direction : call.direction;
        const pc = rtc.connections.at(-1);
        if (pc) pc.inbound = direction === 'sendrecv';
        const cseq = ++call.dialog.cseq;
        call.pending = cseq;
        call.direction = direction;
        const headers = step.kind === 'refresh' ? ['Session-Expires: 1800;refresher=uac', 'Supported: timer'] : [];
        edge.invite(call, headers, edgeSdp(direction, ++call.version), undefined, cseq);
        return;
      }
      case 'glare': {
        const pc = rtc.connections.at(-1);
        if (!call?.answered || !pc || pc.signalingState !== 'stable') return;
        pc.connectionState = 'failed';
        pc.dispatchEvent(new Event('connectionstatechange'));
        await wait(step.ms);
        pc.connectionState = 'connected';
        // The page's restart offer, if out already, waits in the edge's inbox: the edge's own crosses it.
        if (call.pending === undefined && edge.open()) {
          const cseq = ++call.dialog.cseq;
          call.pending = cseq;
          edge.invite(call, [], edgeSdp(call.direction, ++call.version), undefined, cseq);
        }
        return;
      }
      case 'drop':
        sockets.last.drop();
        return;
      case 'bye':
        if (!call?.answered || !edge.open()) return;
        call.dialog.send('BYE');
        call.ended = true;
        backend.setQueueCall(call.callerId, { state: 'finished' });
        return;
      case 'hangup':
        return void voice.hangup().catch(() => undefined);
      case 'advance':
        return settle(step.ms);
    }
  }
}
