import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { serializeEvent, SIGNATURE_HEADER, signBody, verifySignature, webhookHeaders, type QueueEvent } from '../../contract/queue-webhook.js';

/** Spec 6.1's rules for the queue webhook, from both ends: how the service signs, how a receiver verifies. */

const EVENT: QueueEvent = { state: 'queued', to: '+12025550150', queueId: 'q_1', from: '+12025550123', event: 'call.received', callId: 'c_1' };
const SECRET = 'whsec_test';

describe('the queue webhook (spec 6.1)', () => {
  it('serializes the body with its keys in sorted order', () => {
    expect(serializeEvent(EVENT)).toBe('{"callId":"c_1","event":"call.received","from":"+12025550123","queueId":"q_1","state":"queued","to":"+12025550150"}');
  });

  it('signs the exact raw body: hex HMAC-SHA256 keyed by the secret', () => {
    const raw = serializeEvent(EVENT);
    expect(signBody(raw, SECRET)).toBe(createHmac('sha256', SECRET).update(raw).digest('hex'));
    expect(signBody(raw, SECRET)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('verifies the signature of the exact raw body, and nothing else', () => {
    const raw = serializeEvent(EVENT);
    const signature = signBody(raw, SECRET);
    expect(verifySignature(raw, signature, SECRET)).toBe(true);
    expect(verifySignature(raw, signature.toUpperCase(), SECRET)).toBe(true);
    // The same event parsed and written again with other spacing is another body: its signature does not hold.
    expect(verifySignature(JSON.stringify(JSON.parse(raw), null, 1), signature, SECRET)).toBe(false);
    expect(verifySignature(`${raw} `, signature, SECRET)).toBe(false);
    expect(verifySignature(raw, signature, 'another secret')).toBe(false);
  });

  it('refuses a missing, short, long or non-hex signature without throwing', () => {
    const raw = serializeEvent(EVENT);
    const signature = signBody(raw, SECRET);
    for (const bad of [undefined, null, '', signature.slice(0, 63), `${signature}0`, `${signature.slice(0, 63)}g`, 'sha256=' + signature]) {
      expect(verifySignature(raw, bad, SECRET)).toBe(false);
    }
  });

  it('sends the signature header only when the queue has a secret', () => {
    const raw = serializeEvent(EVENT);
    expect(webhookHeaders(raw, SECRET)).toEqual({ 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(raw, SECRET) });
    expect(webhookHeaders(raw, undefined)).toEqual({ 'content-type': 'application/json' });
    expect(webhookHeaders(raw, '')).toEqual({ 'content-type': 'application/json' });
  });
});
