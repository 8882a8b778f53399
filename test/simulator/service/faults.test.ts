import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../contract/http-error.js';
import { FaultPlan } from '../../../simulator/service/faults.js';

describe('FaultPlan (POST /__sim/faults, docs/simulator.md)', () => {
  it('matches the next N requests of a method and a path with :params, then disarms', () => {
    const plan = new FaultPlan();
    plan.add({ method: 'GET', path: '/api/v1/voice/browser-calls/:id', fault: 'error', status: 503, code: 'provider_error', count: 2 });
    expect(plan.take('POST', '/api/v1/voice/browser-calls/bc_1')).toBeUndefined();
    expect(plan.take('GET', '/api/v1/voice/browser-calls/bc_1/hangup')).toBeUndefined();
    expect(plan.take('GET', '/api/v1/voice/browser-calls/bc_1')).toMatchObject({ fault: 'error', status: 503 });
    expect(plan.list()).toEqual([expect.objectContaining({ remaining: 1 })]);
    expect(plan.take('GET', '/api/v1/voice/browser-calls/bc_2')).toMatchObject({ fault: 'error' });
    expect(plan.take('GET', '/api/v1/voice/browser-calls/bc_3')).toBeUndefined();
    expect(plan.list()).toEqual([]);
  });

  it('takes faults in the order they were armed, with * for any method and a trailing * for any rest', () => {
    const plan = new FaultPlan();
    plan.add({ method: '*', path: '/api/v1/voice/*', fault: 'delay', delayMs: 10 });
    plan.add({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'drop-response' });
    expect(plan.take('POST', '/api/v1/voice/browser-calls')).toMatchObject({ fault: 'delay' });
    expect(plan.take('POST', '/api/v1/voice/browser-calls')).toMatchObject({ fault: 'drop-response' });
  });

  it('arms withdraw-invite for a method and path, with nothing else in it', () => {
    const plan = new FaultPlan();
    expect(plan.add({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'withdraw-invite' })).toEqual({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'withdraw-invite', count: 1 });
    expect(() => plan.add({ method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'withdraw-invite', delayMs: 5 })).toThrow(expect.objectContaining({ status: 400, code: 'invalid_input' }) as HttpError);
    expect(plan.take('POST', '/api/v1/voice/browser-calls')).toMatchObject({ fault: 'withdraw-invite' });
  });

  it('refuses a malformed fault with 400 invalid_input and arms nothing', () => {
    const plan = new FaultPlan();
    for (const bad of [{}, { method: 'PUT', path: '/x', fault: 'delay', delayMs: 1 }, { method: 'GET', path: 'x', fault: 'drop-response' }, { method: 'GET', path: '/x', fault: 'error', status: 200, code: 'x' }]) {
      expect(() => plan.add(bad)).toThrow(expect.objectContaining({ status: 400, code: 'invalid_input' }) as HttpError);
    }
    expect(plan.list()).toEqual([]);
  });
});

describe('webhook faults (drop-webhook, delay-webhook)', () => {
  it('match webhooks of an event (and a queue, when given), never a request, and count down', () => {
    const plan = new FaultPlan();
    plan.add({ fault: 'drop-webhook', event: 'call.received', count: 2 });
    plan.add({ fault: 'delay-webhook', event: '*', queueId: 'q_2', delayMs: 6000 });
    expect(plan.take('POST', '/api/v1/voice/queues')).toBeUndefined();
    expect(plan.takeWebhook('call.ended', 'q_1')).toBeUndefined();
    expect(plan.takeWebhook('call.received', 'q_1')).toEqual({ fault: 'drop-webhook', event: 'call.received', count: 2 });
    expect(plan.takeWebhook('call.ended', 'q_2')).toEqual({ fault: 'delay-webhook', event: '*', queueId: 'q_2', delayMs: 6000, count: 1 });
    expect(plan.list()).toEqual([{ fault: 'drop-webhook', event: 'call.received', count: 2, remaining: 1 }]);
    expect(plan.takeWebhook('call.received', 'q_2')).toMatchObject({ fault: 'drop-webhook' });
    expect(plan.takeWebhook('call.received', 'q_2')).toBeUndefined();
  });

  it('leave request faults to requests', () => {
    const plan = new FaultPlan();
    plan.add({ method: '*', path: '/*', fault: 'delay', delayMs: 1 });
    expect(plan.takeWebhook('call.received', 'q_1')).toBeUndefined();
    expect(plan.take('GET', '/x')).toMatchObject({ fault: 'delay' });
  });

  it('refuse an unknown event, a missing one, a request target, and a delay out of range, with 400 invalid_input', () => {
    const plan = new FaultPlan();
    for (const bad of [
      { fault: 'drop-webhook' },
      { fault: 'drop-webhook', event: 'call.answered' },
      { fault: 'drop-webhook', event: 'call.ended', method: 'POST', path: '/x' },
      { fault: 'delay-webhook', event: 'call.ended' },
      { fault: 'delay-webhook', event: 'call.ended', delayMs: 0 },
      { fault: 'delay-webhook', event: 'call.ended', delayMs: 60_001 },
      { fault: 'drop-webhook', event: 'call.ended', queueId: '' },
    ]) {
      expect(() => plan.add(bad)).toThrow(expect.objectContaining({ status: 400, code: 'invalid_input' }) as HttpError);
    }
    expect(plan.list()).toEqual([]);
  });
});
