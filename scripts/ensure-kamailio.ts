import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * The `kamailio` e2e project and the edge tests put a real SIP edge in front of the simulator: Debian's Kamailio
 * (package `kamailio`) with its WebSocket module (package `kamailio-websocket-modules`). Installs them when missing
 * and running as root, as `ensure-browsers.ts` and `ensure-redis.ts` do for theirs; otherwise fails with one line
 * saying how.
 */
export const KAMAILIO = process.env.KAMAILIO_PATH ?? '/usr/sbin/kamailio';

/** Where Debian puts Kamailio's WebSocket module, the part the `kamailio` package alone lacks. */
export const KAMAILIO_WEBSOCKET_MODULE = process.env.KAMAILIO_WEBSOCKET_MODULE ?? '/usr/lib/x86_64-linux-gnu/kamailio/modules/websocket.so';

const PACKAGES = ['kamailio', 'kamailio-websocket-modules'];

/** Returns the path of `kamailio`, installing it and its WebSocket module first if needed; throws one line when it cannot. */
export function ensureKamailio(): string {
  if (existsSync(KAMAILIO) && existsSync(KAMAILIO_WEBSOCKET_MODULE)) return KAMAILIO;
  if (process.getuid?.() !== 0) {
    throw new Error(`kamailio or its WebSocket module is missing (${KAMAILIO}, ${KAMAILIO_WEBSOCKET_MODULE}); install them with: sudo apt-get update && sudo apt-get install -y ${PACKAGES.join(' ')}`);
  }
  console.log('tests: installing Debian kamailio and kamailio-websocket-modules (apt-get)…');
  // No service start (RUNLEVEL=1): the tests run their own Kamailio on free loopback ports.
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', RUNLEVEL: '1' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...PACKAGES], { stdio: 'inherit', env });
  for (const path of [KAMAILIO, KAMAILIO_WEBSOCKET_MODULE]) if (!existsSync(path)) throw new Error(`apt-get finished but ${path} is still missing`);
  return KAMAILIO;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    console.log(ensureKamailio());
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
