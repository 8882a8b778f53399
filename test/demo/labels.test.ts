import { describe, expect, it } from 'vitest';
import {
  announcementLabel,
  callButtonLabel,
  callCardMode,
  canHangUp,
  dialName,
  durationLabel,
  endLabel,
  inboundQueueId,
  KEYPAD_DIGITS,
  partiesLabel,
  qualityLabel,
  recoveryLabel,
  unknownOutcomeLabel,
} from '../../demo/call-labels.js';
import { canDisconnect, connectionButton, connectionLabel, isCleanupOnly } from '../../demo/connection-labels.js';
import { errorArea, logEvent } from '../../demo/labels.js';
import { preflightRows, preflightVerdictLabel } from '../../demo/preflight-labels.js';
// The rules of the controls are the library's (lib/core/status-rules.ts): the demo takes them as they are.
import { canCall, canConnect, canRenew, canRetryCall, canSendDtmf, type CallQuality, type PreflightReport, type TimingEvent, type VoiceBrowserStatus } from '../../lib/index.js';
import { READY } from '../support/demo-status.js';

const idle = READY;
const attempt = (phase: 'creating' | 'admitted' | 'outcome_unknown') => ({ idempotencyKey: 'k', input: { from: '+12025550199', to: '+12025550100' }, phase });

describe('demo labels', () => {
  it('names every connection state in words', () => {
    expect(connectionLabel('ready')).toBe('Ready');
    expect(connectionLabel('recovery_required')).toBe('Recovery required');
    expect(connectionLabel('disconnected')).toBe('Not connected');
  });

  it('allows a call when idle and a retry of the same attempt after a lost answer, nothing else while busy', () => {
    expect(canCall(idle)).toBe(true);
    expect(canCall({ ...idle, connection: 'connecting' })).toBe(false);
    expect(canCall({ ...idle, busy: true, attempt: attempt('creating') })).toBe(false);
    expect(canCall({ ...idle, busy: true, attempt: attempt('outcome_unknown') })).toBe(true);
    expect(callButtonLabel({ ...idle, busy: true, attempt: attempt('outcome_unknown') })).toBe('Retry call');
    expect(callButtonLabel(idle)).toBe('Call');
  });

  it('offers hang up only for a busy call the service named, and not twice while ending', () => {
    const call = { id: 'bc_1', state: 'connected' };
    expect(canHangUp({ ...idle, busy: true, call })).toBe(true);
    expect(canHangUp({ ...idle, busy: true, call: { ...call, state: 'ending' } })).toBe(false);
    expect(canHangUp({ ...idle, busy: true, attempt: attempt('creating') })).toBe(false);
    expect(canHangUp({ ...idle, busy: false, call: { ...call, state: 'ended' } })).toBe(false);
  });

  it('renews only while idle from ready, expired or offline (spec 4.9)', () => {
    expect(canRenew(idle)).toBe(true);
    expect(canRenew({ ...idle, connection: 'expired' })).toBe(true);
    expect(canRenew({ ...idle, connection: 'offline' })).toBe(true);
    expect(canRenew({ ...idle, busy: true, call: { id: 'bc_1', state: 'connected' } })).toBe(false);
    for (const connection of ['disconnected', 'connecting', 'reconnecting', 'renewing', 'disconnecting', 'recovery_required'] as const) {
      expect(canRenew({ ...idle, connection }), connection).toBe(false);
    }
  });

  it('offers one connection button: Connect when nothing is open, else Disconnect, End session after a reload', () => {
    const recovered: VoiceBrowserStatus = { ...idle, connection: 'recovery_required', busy: true, call: { id: 'bc_1', state: 'connected' } };
    expect(isCleanupOnly(recovered)).toBe(true);
    expect(isCleanupOnly(idle)).toBe(false);
    expect(connectionButton(recovered)).toEqual({ label: 'End session', action: 'disconnect', enabled: true });
    expect(connectionButton(idle)).toEqual({ label: 'Disconnect', action: 'disconnect', enabled: true });
    expect(connectionButton({ ...idle, connection: 'disconnected', session: null })).toEqual({ label: 'Connect', action: 'connect', enabled: true });
    // A disconnect that could not prove the call ended: Disconnect again, never Connect over it.
    expect(connectionButton({ ...idle, connection: 'disconnected', session: null, busy: true })).toEqual({ label: 'Disconnect', action: 'disconnect', enabled: true });
    expect(connectionButton({ ...idle, connection: 'disconnecting' })).toEqual({ label: 'Disconnect', action: 'disconnect', enabled: false });
    expect(canConnect(recovered)).toBe(false);
    expect(canDisconnect(recovered)).toBe(true);
    expect(canHangUp(recovered)).toBe(true);
    expect(canRenew(recovered)).toBe(false);
  });

  it('connects only from a clean disconnected state, and disconnects whenever something is held', () => {
    const off: VoiceBrowserStatus = { ...idle, connection: 'disconnected', session: null };
    expect(canConnect(off)).toBe(true);
    expect(canDisconnect(off)).toBe(false);
    expect(canConnect({ ...off, session: idle.session })).toBe(false);
    // A call the last disconnect() could not prove ended: disconnect again, not connect (spec 3.2).
    expect(canConnect({ ...off, busy: true })).toBe(false);
    expect(canDisconnect({ ...off, busy: true })).toBe(true);
    expect(canDisconnect({ ...off, session: idle.session })).toBe(true);
    expect(canDisconnect({ ...idle, connection: 'disconnecting' })).toBe(false);
  });

  it('offers the keypad on a call still running whose audio the page holds, as sendDtmf() takes it', () => {
    const call = { id: 'bc_1', state: 'connected' };
    expect(canSendDtmf({ ...idle, busy: true, call, audio: 'playing' })).toBe(true);
    // The page's leg is answered while the recipient rings: sendDtmf() sends the digit, so the keypad is there.
    expect(canSendDtmf({ ...idle, busy: true, call: { ...call, state: 'dialing_recipient' }, audio: 'playing' })).toBe(true);
    expect(canSendDtmf({ ...idle, busy: true, call, audio: 'none' })).toBe(false);
    expect(canSendDtmf({ ...idle, connection: 'recovery_required', busy: true, call, audio: 'none' })).toBe(false);
  });

  it('has exactly the sixteen DTMF keys of spec 4.9, each named "Dial <digit>"', () => {
    expect([...KEYPAD_DIGITS].sort()).toEqual([...'0123456789*#ABCD'].sort());
    expect(dialName('5')).toBe('Dial 5');
    expect(dialName('#')).toBe('Dial #');
  });

  it('says why a call ended, and nothing while it runs', () => {
    expect(endLabel({ id: 'bc_1', state: 'ended', endReason: 'recipient_hangup' })).toBe('Ended: the other side hung up');
    expect(endLabel({ id: 'bc_1', state: 'failed', endReason: null, error: { code: 'provider_error' } })).toBe('Failed: the voice provider failed');
    expect(endLabel({ id: 'bc_1', state: 'failed', endReason: 'recipient_failed', error: { code: 'provider_error' } })).toBe("Failed: the recipient's leg failed, the voice provider failed");
    // No raw codes: a known code in words, once; an unknown one made readable.
    expect(endLabel({ id: 'bc_1', state: 'failed', endReason: 'connection_lost', error: { code: 'connection_lost' } })).toBe("Failed: the connection to this page's audio was lost");
    expect(endLabel({ id: 'bc_1', state: 'ended', endReason: 'something_new' })).toBe('Ended: something new');
    expect(endLabel({ id: 'bc_1', state: 'connected' })).toBeNull();
    expect(endLabel(null)).toBeNull();
  });

  it('says a call of unknown outcome is not over yet (spec 3.2), and nothing for any other state', () => {
    expect(unknownOutcomeLabel({ id: 'bc_1', state: 'outcome_unknown' })).toBe(
      'Outcome unknown: the service does not know yet how this call went. It stays busy, with no new call, until the service resolves it; Hang up asks it to end the call.',
    );
    expect(unknownOutcomeLabel({ id: 'bc_1', state: 'ended', endReason: 'outcome_resolved' })).toBeNull();
    expect(unknownOutcomeLabel({ id: 'bc_1', state: 'connected' })).toBeNull();
    expect(unknownOutcomeLabel(null)).toBeNull();
  });


  it('shows the call time as m:ss, h:mm:ss past an hour, and a dash before the answer', () => {
    expect(durationLabel(null)).toBe('—');
    expect(durationLabel(0)).toBe('0:00');
    expect(durationLabel(65)).toBe('1:05');
    expect(durationLabel(3725)).toBe('1:02:05');
  });

  it('words a quality sample, with a dash for a figure the browser has not given', () => {
    const quality: CallQuality = { rttMs: 2, jitterMs: 1.2, packetsReceived: 250, packetsLost: 0, lossPercent: 0, packetsSent: 251, mos: 4.4, codec: 'PCMU', microphoneLevel: 0.05, path: 'host/udp' };
    expect(qualityLabel(quality)).toBe('rtt 2 ms, jitter 1.2 ms, loss 0 %, MOS 4.4, PCMU, 250 packets in, 251 out, via host/udp');
    expect(qualityLabel({ ...quality, rttMs: null, mos: null, codec: null, path: null })).toBe('rtt —, jitter 1.2 ms, loss 0 %, MOS —, codec —, 250 packets in, 251 out');
  });

  it('keeps one live quality line per call in the log, and the last 50 events', () => {
    const event = (name: TimingEvent['name'], at: number, callId = 'c1'): TimingEvent => ({ name, at, sinceStartMs: at, callId, ...(name === 'call_quality' ? { quality: { rttMs: at, jitterMs: 0, packetsReceived: at, packetsLost: 0, lossPercent: 0, packetsSent: at, mos: 4.4, codec: 'PCMU', microphoneLevel: 0.05, path: 'host/udp' } } : {}) });
    let log: TimingEvent[] = [];
    for (const e of [event('connected', 1), event('call_quality', 2), event('call_quality', 4), event('ended', 5), event('call_quality', 6, 'c2'), event('call_quality', 8, 'c2')]) log = logEvent(log, e);
    expect(log.map((e) => `${e.name}@${e.at}`)).toEqual(['connected@1', 'call_quality@4', 'ended@5', 'call_quality@8']);
    for (let at = 10; at < 80; at += 1) log = logEvent(log, event('connected', at));
    expect(log).toHaveLength(50);
    expect(log.at(-1)?.at).toBe(79);
  });

  it('words a recovered session truly while its call runs, once the call is over, and with no call; from a reload or elsewhere', () => {
    const recovered: VoiceBrowserStatus = { ...idle, connection: 'recovery_required' };
    const running = { ...recovered, busy: true, call: { id: 'bc_1', state: 'connected' } };
    expect(recoveryLabel(running, 'reload')).toBe('A call from before this page was reloaded is still on. Its audio cannot come back to this page: hang up, then end the session and connect again.');
    expect(recoveryLabel(running, 'elsewhere')).toMatch(/^A call from another visit or tab is still on\./);
    const over = { ...recovered, call: { id: 'bc_1', state: 'failed', endReason: 'connection_lost', error: { code: 'connection_lost' } } };
    expect(recoveryLabel(over, 'reload')).toBe("The call from before this page was reloaded is over (Failed: the connection to this page's audio was lost). End the session, then connect again.");
    expect(recoveryLabel(recovered, 'elsewhere')).toBe('A session from another visit or tab is still open. End it, then connect again.');
    expect(recoveryLabel(idle, 'reload')).toBeNull();
  });

  it('announces the call in words while there is one, else the connection', () => {
    expect(announcementLabel(idle)).toBe('Ready');
    expect(announcementLabel({ ...idle, busy: true, attempt: attempt('creating') })).toBe('Placing the call');
    const call = (state: string) => ({ ...idle, busy: true, call: { id: 'bc_1', state, to: '+12025550100' } });
    expect(announcementLabel(call('dialing_recipient'))).toBe('Calling +12025550100: ringing');
    expect(announcementLabel(call('connected'))).toBe('Connected to +12025550100');
    expect(announcementLabel({ ...call('connected'), audio: 'reconnecting' })).toBe('Connected to +12025550100; the audio is reconnecting');
    expect(announcementLabel({ ...call('connected'), audio: 'held' })).toBe('Connected to +12025550100; on hold by the other side');
    // A call whose audio path is missing says so beside "Connected", never that the call is lost.
    expect(announcementLabel({ ...call('connected'), audio: 'connecting', warnings: ['no_audio_path'] })).toBe('Connected to +12025550100; no audio yet: the audio path has not connected');
    expect(announcementLabel({ ...call('connected'), audio: 'failed' })).toBe('Connected to +12025550100; no audio: the audio path to this browser failed');
    expect(announcementLabel({ ...call('ended'), busy: false, call: { id: 'bc_1', state: 'ended', endReason: 'recipient_hangup' } })).toBe('Ended: the other side hung up');
  });

  it('says who the call is with, from the call once named, else from the attempt', () => {
    expect(partiesLabel(idle)).toBeNull();
    expect(partiesLabel({ ...idle, busy: true, attempt: attempt('creating') })).toBe('To +12025550100 from +12025550199');
    const named = { ...idle, busy: true, attempt: attempt('admitted'), call: { id: 'bc_1', state: 'connected', to: '+12025550101', from: '+12025550198' } };
    expect(partiesLabel(named)).toBe('To +12025550101 from +12025550198');
    expect(partiesLabel({ ...idle, call: { id: 'bc_1', state: 'ended', to: '+12025550101' } })).toBe('To +12025550101');
  });

  it('puts on the call card the dialer when idle or after a lost answer, the call controls while a call is busy, cleanup after a reload', () => {
    expect(callCardMode(idle)).toBe('dialer');
    expect(callCardMode({ ...idle, connection: 'disconnected', session: null })).toBe('dialer');
    expect(callCardMode({ ...idle, call: { id: 'bc_1', state: 'ended' } })).toBe('dialer');
    expect(callCardMode({ ...idle, busy: true, attempt: attempt('creating') })).toBe('in-call');
    expect(callCardMode({ ...idle, busy: true, attempt: attempt('admitted'), call: { id: 'bc_1', state: 'outcome_unknown' } })).toBe('in-call');
    expect(callCardMode({ ...idle, busy: true, attempt: attempt('outcome_unknown') })).toBe('dialer');
    expect(callCardMode({ ...idle, connection: 'recovery_required', busy: true, call: { id: 'bc_1', state: 'connected' } })).toBe('recovery');
  });

  it("places an error one side alone causes on that side, any other beside the last action", () => {
    expect(errorArea('queue_empty', 'call')).toBe('queue');
    expect(errorArea('dequeue_outcome_unknown', 'connection')).toBe('queue');
    expect(errorArea('browser_session_unavailable', 'queue')).toBe('queue');
    expect(errorArea('connection_failed', 'call')).toBe('connection');
    // A call's missing audio path is the call's, whatever was done last.
    expect(errorArea('audio_path_failed', 'connection')).toBe('call');
    expect(errorArea('compliance_dnc', 'connection')).toBe('call');
    expect(errorArea('invalid_argument', 'call')).toBe('call');
    expect(errorArea('network_error', 'connection')).toBe('connection');
  });
});

describe('an inbound caller answered from a queue, in words', () => {
  const names: Record<string, string> = { q_support: 'Support' };
  const nameOf = (id: string) => names[id] ?? id;
  const claim = (phase: 'creating' | 'outcome_unknown') => ({ idempotencyKey: 'k', input: { from: '', to: '' }, phase, queueId: 'q_support' });
  const inbound = (state: string, extra: Record<string, unknown> = {}): VoiceBrowserStatus => ({
    ...idle,
    busy: true,
    call: { id: 'c_1', state, queueId: 'q_support', from: '+14155550123', to: '+18005550100', ...extra },
  });

  it('tells an inbound call by its queueId, and a call this page placed by its absence', () => {
    expect(inboundQueueId(inbound('connected').call)).toBe('q_support');
    expect(inboundQueueId({ id: 'bc_1', state: 'connected', to: '+12025550100' })).toBeNull();
    // A read that found the caller claimed elsewhere names no queue.
    expect(inboundQueueId({ id: 'c_1', state: 'ended', queueId: '' })).toBeNull();
    expect(inboundQueueId(null)).toBeNull();
  });

  it('says the caller comes from queue X rather than "calling" anyone, while it connects and once connected', () => {
    expect(announcementLabel({ ...idle, busy: true, attempt: claim('creating') }, nameOf)).toBe('Answering the next caller from Support');
    expect(announcementLabel({ ...idle, busy: true, attempt: claim('outcome_unknown') }, nameOf)).toBe('The next caller from Support may have been claimed: finding out');
    expect(announcementLabel(inbound('waiting_agent'), nameOf)).toBe('Caller from the Support queue: connecting this page');
    expect(announcementLabel(inbound('connected'), nameOf)).toBe('Connected to +14155550123 from the Support queue');
    expect(announcementLabel({ ...inbound('connected'), audio: 'reconnecting' }, nameOf)).toBe('Connected to +14155550123 from the Support queue; the audio is reconnecting');
    // A queue the page has no name for is named by its id.
    expect(announcementLabel(inbound('connected'))).toBe('Connected to +14155550123 from the q_support queue');
  });

  it('says who the caller is and which line and queue they called', () => {
    expect(partiesLabel(inbound('connected'), nameOf)).toBe('From +14155550123 to +18005550100 (Support queue)');
    expect(partiesLabel(inbound('connected', { to: undefined }), nameOf)).toBe('From +14155550123 (Support queue)');
    // Before the dequeue answers there is nobody to name.
    expect(partiesLabel({ ...idle, busy: true, attempt: claim('creating') }, nameOf)).toBeNull();
  });

  it('says how it ended: the caller hung up, another agent took it, or this page did not answer and the caller is back in the queue', () => {
    expect(announcementLabel({ ...inbound('ended'), busy: false }, nameOf)).toBe('Ended');
    expect(endLabel({ id: 'c_1', state: 'ended', queueId: '', endReason: 'claimed_elsewhere' })).toBe('Ended: another agent took the caller');
    expect(endLabel({ id: 'c_1', state: 'ended', queueId: 'q_support', serviceState: 'queued' })).toBe('Ended: this page did not answer, the caller is back in the queue');
  });

  it('never offers Retry call for a lost dequeue: it has no key, and the reads find the caller if one was claimed', () => {
    const lostClaim = { ...idle, busy: true, attempt: claim('outcome_unknown') };
    expect(canRetryCall(lostClaim)).toBe(false);
    expect(canRetryCall({ ...idle, busy: true, attempt: attempt('outcome_unknown') })).toBe(true);
    expect(canCall(lostClaim)).toBe(false);
    expect(callButtonLabel(lostClaim)).toBe('Call');
    expect(callCardMode(lostClaim)).toBe('in-call');
    expect(callCardMode(inbound('connected'))).toBe('in-call');
  });
});

describe('the setup test in words', () => {
  it('gives each part its figures and advice, the microphone level in dBFS, and nothing for a part not tested', () => {
    const report: PreflightReport = {
      verdict: 'failed',
      microphone: { status: 'warning', code: 'silent_microphone', advice: 'Unmute it.', level: 0.01 },
      signalling: { status: 'ok', code: null, advice: null, sessionMs: 12, registrationMs: 20 },
      media: { status: 'failed', code: 'media_failed', advice: 'Try another network.', setupMs: 90, rttMs: 1.2, jitterMs: 0.4, lossPercent: 0, mos: 4.4 },
      durationMs: 4000,
    };
    expect(preflightVerdictLabel(report.verdict)).toBe('Calls will not work yet');
    expect(preflightRows(report)).toEqual([
      { part: 'microphone', title: 'Microphone', status: 'warning', figures: 'level -40 dBFS', advice: 'Unmute it.' },
      { part: 'signalling', title: 'Connection', status: 'ok', figures: 'session 12 ms, registration 20 ms', advice: null },
      { part: 'media', title: 'Call audio', status: 'failed', figures: 'setup 90 ms, rtt 1.2 ms, jitter 0.4 ms, loss 0 %, MOS 4.4', advice: 'Try another network.' },
    ]);
    const untested = preflightRows({ ...report, microphone: { ...report.microphone, level: null }, media: { ...report.media, status: 'skipped' } });
    expect(untested.map((row) => row.figures)).toEqual(['—', 'session 12 ms, registration 20 ms', '—']);
  });
});
