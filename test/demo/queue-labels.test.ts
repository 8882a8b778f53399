import { describe, expect, it } from 'vitest';
import { callerNoteLabel, canAnswerNext, queueSummaryLabel, sendCallerLabel, waitingLabel, waitingListName } from '../../demo/queue-labels.js';
import { READY } from '../support/demo-status.js';

const ready = READY;

describe('the queue panel in words', () => {
  it('offers Answer next only while ready and idle, and only for a queue someone waits in', () => {
    expect(canAnswerNext(ready, 1)).toBe(true);
    expect(canAnswerNext(ready, 0)).toBe(false);
    expect(canAnswerNext({ ...ready, busy: true, call: { id: 'c_1', state: 'connected', queueId: 'q_1' } }, 2)).toBe(false);
    // An ended call stays on the card without making the page busy.
    expect(canAnswerNext({ ...ready, call: { id: 'c_1', state: 'ended' } }, 1)).toBe(true);
    for (const connection of ['disconnected', 'connecting', 'reconnecting', 'offline', 'expired', 'renewing', 'disconnecting', 'recovery_required'] as const) {
      expect(canAnswerNext({ ...ready, connection }, 1), connection).toBe(false);
    }
  });

  it('says how many wait, in each queue, on the one line screen readers hear', () => {
    expect(waitingLabel(0)).toBe('nobody waiting');
    expect(waitingLabel(1)).toBe('1 caller waiting');
    expect(waitingLabel(3)).toBe('3 callers waiting');
    const rows = [
      { id: 'q_support', name: 'Support', callers: [{ callId: 'c_1', from: '+14155550001', waitSeconds: 7 }, { callId: 'c_2', from: '+14155550002', waitSeconds: 3 }] },
      { id: 'q_sales', name: 'Sales', callers: [] },
    ];
    expect(queueSummaryLabel(rows)).toBe('Support: 2 callers waiting; Sales: nobody waiting');
    expect(queueSummaryLabel([])).toBe('No queues to answer');
  });

  it('does not change the live line as the wait times tick', () => {
    const at = (waitSeconds: number) => [{ id: 'q_support', name: 'Support', callers: [{ callId: 'c_1', from: '+14155550001', waitSeconds }] }];
    expect(queueSummaryLabel(at(1))).toBe(queueSummaryLabel(at(2)));
  });

  it('names each list of waiting callers by its queue', () => {
    expect(waitingListName('Sales')).toBe('Callers waiting in Sales');
  });
});

describe('test callers on demand in words', () => {
  it('names the queue a caller goes to, and says where the last one went or why it did not', () => {
    expect(sendCallerLabel('Support')).toBe('Send a test caller to Support');
    expect(callerNoteLabel({ queueName: 'Support', from: '+14155550123' })).toBe('Sent a test caller, +14155550123, to Support');
    expect(callerNoteLabel({ queueName: 'Sales', failure: 'upstream_invalid_response: the simulator did not take the caller (no answer)' })).toBe(
      'No test caller was sent to Sales (upstream_invalid_response: the simulator did not take the caller (no answer)); try again',
    );
  });
});
