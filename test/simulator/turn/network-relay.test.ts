/**
 * The TURN relaying behind the profiles: coturn relays to the offered media addresses and nothing else, and the
 * slow-turn profile's delaying relay is started once however many requests set the profile at once, and closed
 * even when a close comes while it starts: no relay socket outlives the profiles.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { expect, it } from 'vitest';
import { ensureCoturn } from '../../../scripts/ensure-coturn.js';
import { NetworkProfiles } from '../../../simulator/turn/network.js';
import { allocate } from '../support/turn-allocate.js';

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

it('lets coturn relay to the offered media addresses alone, not to loopback beside them', async () => {
  ensureCoturn();
  // The offered address stands for a machine's own non-loopback one; 127.0.0.2 keeps every packet on loopback.
  const profiles = new NetworkProfiles({ peers: ['127.0.0.2'] });
  try {
    await profiles.set({ profile: 'turn-udp' });
    const [server] = profiles.iceFor('peers', 'u_peers', Date.now() + 60_000).iceServers;
    const [, host = '', port = '0'] = /^turn:([^:]+):(\d+)/.exec(String([server?.urls].flat()[0])) ?? [];
    const permissions = await allocate(host, Number(port), server?.username ?? '', server?.credential ?? '', ['127.0.0.2', '127.0.0.1', '127.0.0.3']);
    expect(permissions).toEqual(['permitted', 403, 403]);
  } finally {
    await profiles.close();
  }
});
