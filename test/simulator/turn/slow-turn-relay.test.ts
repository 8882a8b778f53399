/**
 * The slow-turn profile's delaying relay is started once however many requests set the profile at once, and a
 * close while it starts still closes it: no relay socket outlives the profiles.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ensureCoturn } from '../../../scripts/ensure-coturn.js';
import { NetworkProfiles } from '../../../simulator/turn/network.js';

/** The sockets this process holds open now, by their /proc fd links (proc(5)). */
function openSockets(): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

it('starts one relay for concurrent slow-turn requests, and close stops it even mid-start', async () => {
  ensureCoturn();
  const before = openSockets();
  const profiles = new NetworkProfiles({ peers: ['127.0.0.1'] });
  const [first, second] = await Promise.all([profiles.set({ profile: 'slow-turn' }), profiles.set({ profile: 'slow-turn' })]);
  expect(first.turn?.slowUdp).toBeDefined();
  expect(second.turn?.slowUdp).toBe(first.turn?.slowUdp);
  await profiles.close();
  expect(openSockets()).toBe(before);

  const again = new NetworkProfiles({ peers: ['127.0.0.1'] });
  const setting = again.set({ profile: 'slow-turn' });
  await again.close();
  await setting.catch(() => undefined);
  expect(openSockets()).toBe(before);
});
