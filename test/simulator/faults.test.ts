import { describe, expect, it } from 'vitest';
import { HttpError } from '../../contract/http-error.js';
import { FaultPlan } from '../../simulator/faults.js';

describe('FaultPlan (POST /__sim/faults, DESIGN.md)', () => {
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
