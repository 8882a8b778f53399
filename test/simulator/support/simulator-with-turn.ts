/**
 * A simulator with coturn started, in a process of its own: it prints `ready` once a TURN profile is set, then
 * waits to be killed. A test kills it without warning and looks at what it leaves.
 */
import { startSimulator } from '../../../simulator/server.js';

const sim = await startSimulator({ apiKey: 'vk_test_S1pT3stK3y0000aaaaBBBBccccDDDDee', port: 0, mediaAddresses: 'loopback' });
const response = await fetch(`${sim.url}/__sim/network`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ profile: 'turn-udp' }) });
process.stdout.write(response.ok ? 'ready\n' : `failed ${response.status}\n`);
setInterval(() => undefined, 60_000);
