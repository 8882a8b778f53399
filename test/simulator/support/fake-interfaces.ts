import type { NetworkInterfaceInfo } from 'node:os';
import type { Interfaces } from '../../../simulator/media/media-addresses.js';

/**
 * A machine's `os.networkInterfaces()` from its addresses by interface: `lo`'s are internal, as Linux reports
 * them, and an address with a colon is IPv6.
 *
 * @example
 * ```ts
 * fakeInterfaces({ lo: ['127.0.0.1', '::1'], eth0: ['192.0.2.10'] });
 * ```
 */
export function fakeInterfaces(byName: Record<string, string[]>): Interfaces {
  return Object.fromEntries(
    Object.entries(byName).map(([name, addresses]) => [
      name,
      addresses.map((address): NetworkInterfaceInfo => {
        const common = { address, mac: '00:00:00:00:00:00', internal: name === 'lo', cidr: null };
        return address.includes(':') ? { ...common, family: 'IPv6', netmask: 'ffff:ffff:ffff:ffff::', scopeid: 0 } : { ...common, family: 'IPv4', netmask: '255.255.255.0' };
      }),
    ]),
  );
}
