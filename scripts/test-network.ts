import { networkInterfaces } from 'node:os';

/**
 * The network the stock-browser e2e runs in: a network namespace of its own with loopback and a veth pair, as a
 * machine on a LAN looks to a browser (a default route, an address on it), where nothing reaches outside the
 * machine because nothing in the namespace leads out of it.
 */

/** The veth pair's two ends and their addresses (TEST-NET-like private /24, reachable only inside the namespace). */
export const TEST_NETWORK = { subnet: '10.99.0.', ends: [{ name: 'va', address: '10.99.0.1' }, { name: 'vb', address: '10.99.0.2' }] } as const;

/** The shell commands that make the namespace's network, run inside `unshare -n` before anything else. */
export function testNetworkCommands(): string[] {
  const [a, b] = TEST_NETWORK.ends;
  return [
    'ip link set lo up',
    `ip link add ${a.name} type veth peer name ${b.name}`,
    ...TEST_NETWORK.ends.flatMap((end) => [`ip addr add ${end.address}/24 dev ${end.name}`, `ip link set ${end.name} up`]),
    // A default route, as browsers gather on the default route's interface (Firefox only there, by default).
    `ip route add default dev ${a.name}`,
  ];
}

/**
 * True when this process runs in the test network: every interface address that is not loopback's is one of
 * the veth pair's. A browser with default settings started anywhere else would gather on, and multicast mDNS
 * over, the machine's real network.
 */
export function inTestNetwork(interfaces = networkInterfaces()): boolean {
  const external = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((info) => !info.internal && info.family === 'IPv4');
  const veth: readonly string[] = TEST_NETWORK.ends.map((end) => end.address);
  const ipv6 = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((info) => !info.internal && info.family === 'IPv6' && !info.address.startsWith('fe80:'));
  return external.length === veth.length && external.every((info) => veth.includes(info.address)) && ipv6.length === 0;
}
