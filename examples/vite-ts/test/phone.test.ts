import { createTestVoiceBrowser, httpError, type TestVoiceBrowser } from 'voice-browser/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { mountPhone } from '../src/phone.js';

/**
 * The phone page as a user meets it, over voice-browser's testing kit: the real helper, a scripted fake
 * service and SIP peer, and a fake clock. No server, microphone or WebRTC.
 */

let kit: TestVoiceBrowser;
let root: HTMLElement;

const part = <T extends HTMLElement>(id: string) => root.querySelector<T>(`[data-id="${id}"]`)!;
const headline = () => part('headline').textContent;
const problem = () => (part('problem').hidden ? null : part('problem').textContent);
const click = async (id: string) => {
  part<HTMLButtonElement>(id).click();
  await kit.clock.flush();
};

/** Connects and places a call to `to`; the service rings the page, which answers. Returns the call's id. */
async function callAndAnswer(to: string): Promise<string> {
  await click('connect');
  part<HTMLInputElement>('to').value = to;
  await click('call');
  const id = kit.voice.status().call!.id;
  kit.sip.invite(id);
  await kit.clock.flush();
  return id;
}

beforeEach(async () => {
  document.body.innerHTML = '<main></main>';
  root = document.querySelector('main')!;
  mountPhone(root, (onStatus) => {
    kit = createTestVoiceBrowser({ onStatus });
    return kit.voice;
  });
  await kit.clock.flush(); // the page's recover() on load: nothing to recover
});

describe('the phone page', () => {
  it('connects, calls, shows the answer, mutes, and shows the far end hanging up', async () => {
    expect(headline()).toBe('Not connected');
    await click('connect');
    expect(headline()).toBe('Ready to call');

    const id = await callAndAnswer('+12025550100');
    expect(headline()).toMatch(/^Calling \+12025550100/);
    expect(part<HTMLButtonElement>('call').disabled).toBe(true);

    kit.backend.setCall(id, { state: 'connected' });
    await kit.clock.advance(1000);
    expect(headline()).toBe('In a call with +12025550100');
    await click('mute');
    expect(part('mute').getAttribute('aria-pressed')).toBe('true');

    kit.backend.setCall(id, { state: 'ended', endReason: 'recipient_hangup', busy: false });
    await kit.clock.advance(1000);
    expect(headline()).toBe('Call ended: they hung up');
    expect(part<HTMLButtonElement>('hangup').disabled).toBe(true);
    expect(part<HTMLButtonElement>('call').disabled).toBe(false);
  });

  it('hangs up from the page and stays busy until a read proves the end', async () => {
    const id = await callAndAnswer('+12025550100');
    kit.backend.setCall(id, { state: 'connected' });
    await kit.clock.advance(1000);
    await click('hangup');
    expect(kit.backend.requestsOf('hangupCall')).toHaveLength(1);
    expect(headline()).toBe('Hanging up');
    expect(part<HTMLButtonElement>('call').disabled).toBe(true);

    kit.backend.setCall(id, { state: 'ended', endReason: 'agent_hangup', busy: false });
    await kit.clock.advance(1000);
    expect(headline()).toBe('Call ended: you hung up');
    expect(part<HTMLButtonElement>('call').disabled).toBe(false);
  });

  it.each([
    ['recipient_busy', 'Call ended: the line was busy'],
    ['no_answer', 'Call ended: nobody answered'],
  ])('says so when the call ends with %s', async (endReason, words) => {
    const id = await callAndAnswer('+12025550100');
    kit.backend.setCall(id, { state: 'ended', endReason, busy: false });
    await kit.clock.advance(1000);
    expect(headline()).toBe(words);
  });

  it('shows a compliance refusal in words, and lets the user call another number', async () => {
    await click('connect');
    kit.backend.fail('createCall', httpError(403, 'compliance_dnc'));
    await click('call');
    expect(problem()).toMatch(/blocked for compliance/);
    expect(part<HTMLButtonElement>('call').disabled).toBe(false);
  });

  it('after a lost answer offers Retry call, which repeats the same attempt instead of dialling again', async () => {
    await click('connect');
    kit.backend.drop('createCall');
    await click('call');
    expect(part('call').textContent).toBe('Retry call');
    expect(problem()).toMatch(/may have been placed/);

    await click('call');
    const keys = kit.backend.requestsOf('createCall').map((request) => request.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(headline()).toMatch(/^Calling \+12025550100/);
  });

  it('asks to renew once the session expires, and renews', async () => {
    kit.backend.sessionExpiresAt = new Date(kit.clock.now() + 60_000).toISOString();
    await click('connect');
    await kit.clock.advance(61_000);
    expect(headline()).toBe('Session expired: renew to call again');
    expect(part<HTMLButtonElement>('call').disabled).toBe(true);
    await click('renew');
    expect(headline()).toBe('Ready to call');
  });

  it("keeps the call on screen through the service's rate limit, and shows when reads resume", async () => {
    const id = await callAndAnswer('+12025550100');
    kit.backend.fail('getCall', httpError(429, 'rate_limited', 2000));
    kit.backend.setCall(id, { state: 'connected' });
    await kit.clock.advance(1000);
    expect(headline()).toMatch(/^Calling/);
    await kit.clock.advance(2000);
    expect(headline()).toBe('In a call with +12025550100');
  });
});
