import { describe, expect, it } from 'vitest';
import type { VoiceBrowserStatus } from '../../lib/index.js';
import type { SupervisedCall } from '../../demo/supervision-api.js';
import {
  agentLabel,
  canRecord,
  mergeSupervisedRows,
  monitorAnnouncement,
  monitoredCallId,
  monitoredFrom,
  recordButtonLabel,
  recordingLabel,
  SUPERVISED_ROWS_KEPT,
  supervisedPartiesLabel,
  supervisedSeconds,
  supervisedStateLabel,
} from '../../demo/supervision-labels.js';
import { READY } from '../support/demo-status.js';

const idle = READY;

const agentCall = { id: 'bc_1', from: '+12025550199', to: '+12025550100', state: 'connected', answeredAt: '2026-11-27T17:00:00.000Z', createdAt: '2026-11-27T16:59:58.000Z' };
const queueCall = { id: 'c_2', from: '+14155550111', to: '+18005550100', state: 'dequeuing', queueId: 'q_support', answeredAt: null, createdAt: '2026-11-27T17:00:10.000Z' };
const listed: SupervisedCall[] = [
  { agent: 'demo:agent1', call: agentCall },
  { agent: null, call: queueCall },
];

const listening = (state: string, monitored = 'bc_1'): VoiceBrowserStatus => ({
  ...idle,
  busy: state !== 'ended',
  call: { id: 'c_leg', state, kind: 'monitor', monitoredCallId: monitored } as unknown as VoiceBrowserStatus['call'],
  attempt: { idempotencyKey: 'k', input: { from: '', to: '' }, phase: 'admitted', monitor: monitored },
});

describe('the supervisor list', () => {
  it('names agents by their demo username, and a queue caller bridged elsewhere as another agent', () => {
    expect(agentLabel('demo:agent1')).toBe('agent1');
    expect(agentLabel('someone')).toBe('someone');
    expect(agentLabel(null)).toBe('another agent');
  });

  it('keeps the calls a read lists in its order, then those that ended since, marked ended', () => {
    const first = mergeSupervisedRows([], listed);
    expect(first.map((row) => [row.call.id, row.inProgress])).toEqual([
      ['bc_1', true],
      ['c_2', true],
    ]);
    const next = mergeSupervisedRows(first, [{ agent: null, call: { ...queueCall, state: 'established' } }]);
    expect(next.map((row) => [row.call.id, row.inProgress, supervisedStateLabel(row)])).toEqual([
      ['c_2', true, 'connected'],
      ['bc_1', false, 'ended'],
    ]);
  });

  it('keeps at most a few rows, the ones in progress first', () => {
    const many = Array.from({ length: SUPERVISED_ROWS_KEPT + 3 }, (_, i) => ({ agent: `demo:a${i}`, call: { ...agentCall, id: `bc_${i}` } }));
    const rows = mergeSupervisedRows(mergeSupervisedRows([], many), [listed[1]!]);
    expect(rows).toHaveLength(SUPERVISED_ROWS_KEPT);
    expect(rows[0]?.call.id).toBe('c_2');
  });

  it('words a call: its parties, its state and its time since the answer, else since it was made', () => {
    const [row, queued] = mergeSupervisedRows([], listed);
    expect(supervisedPartiesLabel(agentCall)).toBe('From +12025550199 to +12025550100');
    expect(supervisedPartiesLabel({ id: 'x', state: 'connected' })).toBe('From an unknown number to an unknown number');
    expect(supervisedStateLabel(row!)).toBe('connected');
    expect(supervisedStateLabel(queued!)).toBe('connecting');
    expect(supervisedStateLabel({ agent: null, call: { id: 'x', state: 'pre_established' }, inProgress: true })).toBe('pre established');
    expect(supervisedSeconds(agentCall, Date.parse('2026-11-27T17:01:05.500Z'))).toBe(65);
    expect(supervisedSeconds(queueCall, Date.parse('2026-11-27T17:00:15.000Z'))).toBe(5);
    expect(supervisedSeconds({ id: 'x', state: 'connected' }, Date.now())).toBeNull();
  });
});

describe('the monitor leg on the call card', () => {
  it('is known by its call, else by its attempt', () => {
    expect(monitoredCallId(idle)).toBeNull();
    expect(monitoredCallId(listening('connected'))).toBe('bc_1');
    expect(monitoredCallId({ ...idle, busy: true, attempt: { idempotencyKey: 'k', input: { from: '', to: '' }, phase: 'creating', monitor: 'bc_9' } })).toBe('bc_9');
    expect(monitoredCallId({ ...idle, busy: true, call: { id: 'bc_1', state: 'connected' } as VoiceBrowserStatus['call'] })).toBeNull();
  });

  it('says whom it listens to, from the supervisor list', () => {
    const rows = mergeSupervisedRows([], listed);
    expect(monitoredFrom(listening('connected'), rows)).toEqual({ agent: 'agent1', parties: 'From +12025550199 to +12025550100' });
    expect(monitoredFrom(listening('connected', 'bc_unlisted'), rows)).toBeNull();
    expect(monitoredFrom(idle, rows)).toBeNull();
  });

  it('words each state of the leg', () => {
    expect(monitorAnnouncement(idle, 'agent1')).toBeNull();
    expect(monitorAnnouncement({ ...idle, busy: true, attempt: { idempotencyKey: 'k', input: { from: '', to: '' }, phase: 'creating', monitor: 'bc_1' } }, 'agent1')).toBe('Listening in to agent1: connecting this page');
    expect(monitorAnnouncement({ ...idle, busy: true, attempt: { idempotencyKey: 'k', input: { from: '', to: '' }, phase: 'outcome_unknown', monitor: 'bc_1' } }, null)).toBe('Listening in to the call may have started: finding out');
    expect(monitorAnnouncement(listening('waiting_agent'), 'agent1')).toBe('Listening in to agent1: connecting this page');
    expect(monitorAnnouncement(listening('connected'), 'agent1')).toBe('Listening to agent1');
    expect(monitorAnnouncement(listening('ending'), 'agent1')).toBe('Leaving the call');
    expect(monitorAnnouncement(listening('ended'), 'agent1')).toBe('Listening to agent1 ended');
  });

  it('says why listening stopped: the call listened to ended, the supervisor stopped, or their session ended', () => {
    const over = (state: string, endReason: string) => ({ ...listening(state), call: { ...listening(state).call, endReason } as VoiceBrowserStatus['call'] });
    expect(monitorAnnouncement(over('ended', 'call_ended'), 'agent1')).toBe("agent1's call ended, so listening stopped");
    expect(monitorAnnouncement(over('ended', 'call_ended'), null)).toBe('The call ended, so listening stopped');
    expect(monitorAnnouncement(over('ended', 'agent_hangup'), 'agent1')).toBe('Stopped listening to agent1');
    expect(monitorAnnouncement(over('ended', 'api_hangup'), 'agent1')).toBe('Stopped listening to agent1');
    expect(monitorAnnouncement(over('ended', 'session_ended'), 'agent1')).toBe("Stopped listening to agent1: this page's session ended");
    expect(monitorAnnouncement(over('failed', 'agent_rejected'), 'agent1')).toBe('Could not listen to agent1');
  });
});

describe('recording', () => {
  const connected: VoiceBrowserStatus = { ...idle, busy: true, call: { id: 'bc_1', state: 'connected' } as VoiceBrowserStatus['call'] };

  it('is offered on a connected call of the page, never on a monitor leg, and says what pressing does', () => {
    expect(canRecord(connected)).toBe(true);
    expect(canRecord({ ...connected, call: { id: 'bc_1', state: 'dialing_recipient' } as VoiceBrowserStatus['call'] })).toBe(false);
    expect(canRecord(idle)).toBe(false);
    expect(canRecord(listening('connected'))).toBe(false);
    expect(recordButtonLabel(connected)).toBe('Record');
    expect(recordButtonLabel({ ...connected, recording: true })).toBe('Stop recording');
  });

  it('words a recording by its place and length, or that it still records', () => {
    expect(recordingLabel({ id: 'rec_1', callId: 'bc_1', state: 'completed', durationMs: 4230 }, 0)).toBe('Recording 1, 4.2 s');
    expect(recordingLabel({ id: 'rec_2', callId: 'bc_1', state: 'recording' }, 1)).toBe('Recording 2, still recording');
    expect(recordingLabel({ id: 'rec_3', callId: 'bc_1', state: 'completed' }, 2)).toBe('Recording 3');
  });
});
