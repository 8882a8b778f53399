import { ensureDebianPackages, runWhenMain } from './ensure-debian-packages.js';

/**
 * The `kamailio` e2e project and the edge tests put a real SIP edge in front of the simulator: Debian's Kamailio
 * (package `kamailio`) with its WebSocket module (package `kamailio-websocket-modules`), installed when missing
 * as the browsers and `redis-server` are.
 */
export const KAMAILIO = process.env.KAMAILIO_PATH ?? '/usr/sbin/kamailio';

/** Where Debian puts Kamailio's WebSocket module, the part the `kamailio` package alone lacks. */
export const KAMAILIO_WEBSOCKET_MODULE = process.env.KAMAILIO_WEBSOCKET_MODULE ?? '/usr/lib/x86_64-linux-gnu/kamailio/modules/websocket.so';

/** Returns the path of `kamailio`, installing it and its WebSocket module first if needed; throws one line when it cannot. */
export function ensureKamailio(): string {
  ensureDebianPackages('tests', [
    { path: KAMAILIO, pkg: 'kamailio' },
    { path: KAMAILIO_WEBSOCKET_MODULE, pkg: 'kamailio-websocket-modules' },
  ]);
  return KAMAILIO;
}

runWhenMain(import.meta.url, ensureKamailio);
