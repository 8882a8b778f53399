import { ensureDebianPackages, runWhenMain } from './ensure-debian-packages.js';

/**
 * The simulator's TURN-using network profiles start Debian's coturn (package `coturn`, binary `turnserver`),
 * installed when missing as the browsers, Kamailio and `redis-server` are; with NSS's `certutil` (package
 * `libnss3-tools`), by which the TURN spec's Firefox trusts coturn's self-signed certificate.
 */
export const TURNSERVER = process.env.TURNSERVER_PATH ?? '/usr/bin/turnserver';

/** Returns the path of `turnserver`, installing coturn first if needed; throws one line when it cannot. */
export function ensureCoturn(): string {
  ensureDebianPackages('tests', [
    { path: TURNSERVER, pkg: 'coturn' },
    { path: '/usr/bin/certutil', pkg: 'libnss3-tools' },
  ]);
  return TURNSERVER;
}

runWhenMain(import.meta.url, ensureCoturn);
