import { describe, expect, it } from 'vitest';
import { DEFAULT_API_KEY, SimulatorOptionsError, startSimulator } from '../../simulator/index.js';

/** `@voice-browser/simulator`'s entry as an integrator calls it: defaults that work, and a bad key refused. */
describe('startSimulator()', () => {
  it('starts on a free loopback port with the development key, and says where its REST and SIP are', async () => {
    const simulator = await startSimulator();
    try {
      expect(simulator.apiKey).toBe(DEFAULT_API_KEY);
      expect(simulator.baseUrl).toBe(`http://127.0.0.1:${simulator.port}/api`);
      expect(simulator.sipUrl).toBe(`ws://127.0.0.1:${simulator.port}/sip`);
      const read = await fetch(`${simulator.baseUrl}/v1/voice/browser-sessions?externalSubject=someone`, { headers: { 'X-Api-Key': DEFAULT_API_KEY } });
      expect(read.status).toBe(200);
    } finally {
      await simulator.close();
    }
  });

  it.each(['', 'abc', 'vsk_short', `sk_${'a'.repeat(32)}`, `vsk_${'a'.repeat(31)}!`])('refuses the key %j before starting anything', async (apiKey) => {
    const refusal = await startSimulator({ apiKey }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SimulatorOptionsError);
    expect(refusal).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('vsk_') });
  });

  it('refuses an edgeProfile it does not know, naming the profiles, before starting anything', async () => {
    const refusal = await startSimulator({ edgeProfile: 'opensips' as 'kamailio' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SimulatorOptionsError);
    expect(refusal).toMatchObject({ code: 'invalid_argument', message: 'startSimulator: edgeProfile must be "kamailio", "no-crlf-pong", "asterisk", "carrier-sbc"' });
  });
});
