import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVoiceProxy } from '../../../server-proxy/setup/proxy.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { API_KEY, send, testAuthenticate } from '../support/harness.js';

/**
 * Keys in the spec's states (spec 3.3, 5), made through the running simulator's control API as an integrator
 * would (`POST /__sim/keys`), behind a real proxy over loopback: every refusal reaches the page as the definite
 * `403 browser_voice_unavailable`, and a suspended account stays `403` past its quota, never a `429` that would
 * have the page wait a minute to learn nothing (spec 5.4: refused at request time).
 */

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ apiKey: API_KEY, port: 0, mediaAddresses: 'loopback' });
});
afterAll(() => sim.close());

/** A new key of a new account at the simulator, in the state `body` asks for. */
async function makeKey(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${sim.url}/__sim/keys`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

/** The proxy with `apiKey`, and alice's page requests through it (the harness's `send`: the key is in no answer). */
function pageOf(apiKey: string) {
  const lines: string[] = [];
  const proxy = createVoiceProxy({ baseUrl: sim.baseUrl, apiKey, authenticate: testAuthenticate, rateLimit: false, log: (line) => lines.push(line) });
  const page = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    send({ proxy, apiKey }, method, path, { user: 'alice', body, headers });
  return { send: page, lines };
}

describe('a key the service refuses, made through POST /__sim/keys', () => {
  it.each([
    ['a suspended account', { account: { suspended: true } }, ['call', 'session']],
    ['an account without voice', { account: { voiceEntitled: false } }, ['call', 'session']],
    ['a paused key', { paused: true }, ['call', 'session']],
    ['an address outside the allow-list', { allowList: ['192.0.2.0/24'] }, ['call', 'session']],
    // A call's request starts with a read of its session (ownership), a session's with writes (agent, session).
    ['a key without voice_calls.read', { scopes: ['voice_calls.write'] }, ['call']],
    ['a key without voice_calls.write', { scopes: ['voice_calls.read'] }, ['session']],
  ])('answers the page 403 browser_voice_unavailable for %s', async (_, state, requests) => {
    const { send, lines } = pageOf(await makeKey(state));
    const answers = [];
    if (requests.includes('call')) {
      answers.push(await send('POST', '/voice/browser-calls', { sessionId: 'bs_any', from: '+12025550199', to: '+12025550100' }, { 'idempotency-key': 'k-1' }));
    }
    if (requests.includes('session')) answers.push(await send('POST', '/voice/browser-sessions', {}));
    for (const answer of answers) expect(answer).toMatchObject({ status: 403, json: { code: 'browser_voice_unavailable' } });
    expect(lines.some((line) => line.includes('refused the API key'))).toBe(true);
  });

  it('stays 403 for a suspended account whose quota is used up: suspension is checked first (spec 5.4)', async () => {
    const { send } = pageOf(await makeKey({ account: { suspended: true }, quota: { perMinute: 2 } }));
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await send('GET', '/voice/browser-sessions'));
    expect(answers.map((a) => a.status)).toEqual([403, 403, 403, 403, 403]);
    expect(answers.every((a) => a.json['code'] === 'browser_voice_unavailable' && !a.headers.has('retry-after'))).toBe(true);
  });

  it('serves a key made in the default state, and refuses it once its account is suspended live (PATCH /__sim/keys/:key)', async () => {
    const key = await makeKey({});
    const { send } = pageOf(key);
    expect((await send('POST', '/voice/browser-sessions', {})).status).toBe(201);
    const patched = await fetch(`${sim.url}/__sim/keys/${key}`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ account: { suspended: true } }) });
    expect(patched.status).toBe(200);
    expect(await send('GET', '/voice/browser-sessions')).toMatchObject({ status: 403, json: { code: 'browser_voice_unavailable' } });
  });
});
