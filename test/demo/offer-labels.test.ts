import { describe, expect, it } from 'vitest';
import { availabilityLabel, isOfferQueue, OFFER_QUEUE_NAMES, offerAlertLabel, offerKey, offerOptions, ringSeconds, type KeyPress } from '../../demo/offer-labels.js';
import { DEMO_OFFER_QUEUE_NAME, DEMO_QUEUE_NAMES } from '../../demo/server/demo-queues.js';

const offer = { callId: 'c_1', caller: '+14155550111', queueId: 'q_sales', since: Date.parse('2026-11-27T10:00:00Z') };
const press = (key: string, more: Partial<KeyPress> = {}): KeyPress => ({ key, altKey: false, ctrlKey: false, metaKey: false, target: { tagName: 'BODY', isContentEditable: false }, ...more });

describe('offered callers in words', () => {
  it('names the offer-mode queue as the demo server makes it, and only that one', () => {
    expect(OFFER_QUEUE_NAMES).toEqual([DEMO_OFFER_QUEUE_NAME]);
    expect(DEMO_QUEUE_NAMES.filter(isOfferQueue)).toEqual([DEMO_OFFER_QUEUE_NAME]);
    // The other queue stays pulled, so the demo shows both modes.
    expect(DEMO_QUEUE_NAMES.length).toBeGreaterThan(OFFER_QUEUE_NAMES.length);
  });

  it("says the server's availability and what it means for this page", () => {
    expect(availabilityLabel('available', ['Sales'], 'ready')).toBe('Available: Sales callers ring this page');
    expect(availabilityLabel('away', ['Sales'], 'ready')).toBe('Away: Sales callers are not offered to you');
    expect(availabilityLabel('away', [], 'ready')).toBe('Away: offered callers are not offered to you');
    // What the server said stands while the connection comes and goes: it is the user's word, not the connection's.
    expect(availabilityLabel('available', ['Sales'], 'disconnected')).toBe('Available: Sales callers ring this page');
  });

  it('never says it is checking: before Connect nothing was read, and once connected an unanswered or failed read is not known', () => {
    for (const connection of ['disconnected', 'connecting', 'recovery_required'] as const) {
      expect(availabilityLabel(null, ['Sales'], connection)).toBe('Not read yet: Connect to learn whether Sales callers ring this page, or use the switch to say');
    }
    for (const connection of ['ready', 'reconnecting', 'offline', 'expired', 'renewing', 'disconnecting'] as const) {
      expect(availabilityLabel(null, ['Sales'], connection)).toBe('Not known: the server has not said whether Sales callers ring this page; use the switch to say');
    }
    expect(availabilityLabel(null, [], 'ready')).not.toMatch(/checking/i);
  });

  it('alerts who rings, from which queue once known, and the keys that answer', () => {
    expect(offerAlertLabel(offer, null)).toBe('Caller +14155550111 is ringing. Press A to accept or D to decline.');
    expect(offerAlertLabel(offer, 'Sales')).toBe('Caller +14155550111 from the Sales queue is ringing. Press A to accept or D to decline.');
  });

  it('counts the ring time in whole seconds, never below zero', () => {
    expect(ringSeconds(offer, offer.since + 12_900)).toBe(12);
    expect(ringSeconds(offer, offer.since - 500)).toBe(0);
  });

  it('takes A and D as Accept and Decline, in either case, outside text fields and without modifiers', () => {
    expect(offerKey(press('a'))).toBe('accept');
    expect(offerKey(press('D'))).toBe('decline');
    expect(offerKey(press('x'))).toBeNull();
    expect(offerKey(press('a', { target: null }))).toBe('accept');
    for (const tagName of ['INPUT', 'TEXTAREA', 'SELECT']) expect(offerKey(press('a', { target: { tagName, isContentEditable: false } })), tagName).toBeNull();
    expect(offerKey(press('d', { target: { tagName: 'DIV', isContentEditable: true } }))).toBeNull();
    expect(offerKey(press('a', { ctrlKey: true }))).toBeNull();
    expect(offerKey(press('d', { metaKey: true }))).toBeNull();
    expect(offerKey(press('a', { altKey: true }))).toBeNull();
  });

  it("keeps the helper's ring time unless the address asks for a whole positive number of ms", () => {
    expect(offerOptions(new URLSearchParams(''))).toEqual({});
    expect(offerOptions(new URLSearchParams('ringMs=3000'))).toEqual({ ringMs: 3000 });
    for (const bad of ['ringMs=0', 'ringMs=-5', 'ringMs=1.5', 'ringMs=soon']) expect(offerOptions(new URLSearchParams(bad)), bad).toEqual({});
  });
});
