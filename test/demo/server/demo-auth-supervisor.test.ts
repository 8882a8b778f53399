import { describe, expect, it } from 'vitest';
import { createDemoAuth, isDemoSupervisor } from '../../../demo/server/demo-auth.js';
import type { VoiceProxy } from '../../../server-proxy/setup/proxy.js';

/**
 * The demo login's one role (docs/demo.md): a username starting with `lead` supervises every demo queue
 * and every other user the server has seen since it started; everyone else supervises nobody.
 */

const SECRET = 'a-session-secret-that-is-long-enough-0123456789';

function demoAuth(queues: readonly string[] = ['q_support', 'q_sales']) {
  return createDemoAuth({ secret: SECRET, proxy: () => ({}) as VoiceProxy, supervisedQueues: () => queues });
}

/** Logs `username` in; resolves with the Cookie header its answer sets. */
async function login(auth: ReturnType<typeof demoAuth>, username: string): Promise<string> {
  const response = await auth.app.fetch(new Request('http://app.test/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username }) }));
  expect(response.status).toBe(200);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

const userOf = (auth: ReturnType<typeof demoAuth>, cookie: string) => auth.authenticate(new Request('http://app.test/voice/queues', { headers: { cookie } }));

describe('the demo login: supervisors', () => {
  it('names a supervisor by the lead prefix, in any case', () => {
    expect(['lead', 'lead1', 'Lead-anna', 'LEAD.x'].map(isDemoSupervisor)).toEqual([true, true, true, true]);
    expect(['agent1', 'mislead', 'le', 'team-lead'].map(isDemoSupervisor)).toEqual([false, false, false, false]);
  });

  it('makes a lead the supervisor of every demo queue and every other user seen, and nobody else one', async () => {
    const auth = demoAuth();
    const agent1 = await login(auth, 'agent1');
    const lead = await login(auth, 'lead1');
    const agent2 = await login(auth, 'agent2');
    expect(await userOf(auth, lead)).toEqual({ id: 'demo:lead1', name: 'lead1', supervisor: { agents: ['demo:agent1', 'demo:agent2'], queues: ['q_support', 'q_sales'] } });
    expect(await userOf(auth, agent1)).toEqual({ id: 'demo:agent1', name: 'agent1' });
    expect(await userOf(auth, agent2)).toEqual({ id: 'demo:agent2', name: 'agent2' });
  });

  it('tells the page a supervisor is one, and nothing new of anyone else', async () => {
    const auth = demoAuth();
    const answers = await Promise.all(
      ['lead1', 'agent1'].map(async (username) => {
        const cookie = await login(auth, username);
        return (await (await auth.app.fetch(new Request('http://app.test/auth/me', { headers: { cookie } }))).json()) as unknown;
      }),
    );
    expect(answers).toEqual([{ user: { name: 'lead1', supervisor: true } }, { user: { name: 'agent1' } }]);
  });

  it('counts a user whose cookie it verified as seen, as well as one who logged in', async () => {
    const before = demoAuth();
    const agent = await login(before, 'agent9');
    // The same secret after a restart: the cookie still holds, and its first request makes its user seen.
    const after = demoAuth([]);
    const lead = await login(after, 'lead2');
    expect((await userOf(after, lead))?.supervisor?.agents).toEqual([]);
    await userOf(after, agent);
    expect(await userOf(after, lead)).toEqual({ id: 'demo:lead2', name: 'lead2', supervisor: { agents: ['demo:agent9'], queues: [] } });
  });
});
