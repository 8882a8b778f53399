import { afterEach, describe, expect, it } from 'vitest';
import { agentName, subjectOf } from '../../../server-proxy/access/subject.js';
import { charCount } from '../../../contract/voice-input.js';
import { API_KEY, createHarness, createSession, send, type Harness } from '../support/harness.js';

/** The externalSubject: derived from the user, at most 200 characters, stable per user (spec 2.6, 8). */

let harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  harnesses = [];
});

describe('subjectOf', () => {
  it('keeps an id of up to 200 characters, counted as code points', () => {
    expect(subjectOf({ id: 'alice' })).toBe('alice');
    const emoji = '😀'.repeat(200);
    expect(subjectOf({ id: emoji })).toBe(emoji);
  });

  it('derives a stable, distinct subject of at most 200 characters from a longer id', () => {
    const long = 'x'.repeat(201);
    const subject = subjectOf({ id: long });
    expect(charCount(subject)).toBeLessThanOrEqual(200);
    expect(subject).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    expect(subjectOf({ id: long })).toBe(subject);
    expect(subjectOf({ id: `${long}y` })).not.toBe(subject);
  });

  it('refuses a user without an id: an integration bug, not something to guess around', () => {
    expect(() => subjectOf({ id: '' })).toThrow(/non-empty string/);
  });

  it('cuts an agent name to 200 characters without splitting a character', () => {
    expect(agentName({ id: 'a', name: '😀'.repeat(300) }, 'a')).toBe('😀'.repeat(200));
    expect(agentName({ id: 'a' }, 'subject')).toBe('subject');
  });
});

describe('users with ids over 200 characters, through the proxy', () => {
  it('get their own session under the derived subject, and stay apart', async () => {
    const h = createHarness({ rateLimit: false });
    harnesses.push(h);
    const first = `https://idp.example/users/${'a'.repeat(300)}`;
    const second = `https://idp.example/users/${'a'.repeat(299)}b`;

    const session = await createSession(h, first);
    expect(session.session.externalSubject).toBe(subjectOf({ id: first }));
    expect(h.service.listAgents(API_KEY, subjectOf({ id: first }))).toHaveLength(1);
    expect((await send(h, 'GET', `/voice/browser-sessions/${session.session.id}`, { user: first })).status).toBe(200);
    expect((await send(h, 'GET', `/voice/browser-sessions/${session.session.id}`, { user: second })).status).toBe(404);
  });
});
