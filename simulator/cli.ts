import { parseArgs } from 'node:util';
import { ConfigError } from '../contract/environment.js';

/**
 * The simulator's command line (`npm run simulator -- --port 8090`, and the package's bin): flags that stand
 * for SIM_* variables, a flag winning over its variable. A wrong flag or value is one line naming the flag.
 */

/** Each flag and the variable it stands for. */
const FLAGS = { port: 'SIM_PORT', 'api-key': 'SIM_API_KEY', 'media-addresses': 'SIM_MEDIA_ADDRESSES', 'edge-profile': 'SIM_EDGE_PROFILE' } as const;

export const USAGE = `usage: voice-browser-simulator [--port <port>] [--api-key <vsk_ key>] [--media-addresses host|loopback] [--edge-profile <profile>]

Runs a local voice service: REST, SIP over WebSocket, WebRTC audio and faults, on 127.0.0.1.
  --port      where it listens (default 8090; 0 picks a free port); or SIM_PORT
  --api-key   the key it accepts: "vsk_" and 32 letters or digits; or SIM_API_KEY
  --media-addresses
              where call audio is offered: "host" (default), this machine's own network addresses
              (127.0.0.1 when none is up), which a browser with default settings pairs with; "loopback", 127.0.0.1 alone, for
              browsers started with loopback switches; or SIM_MEDIA_ADDRESSES
  --edge-profile
              the SIP edge it speaks as: "kamailio" (default), "no-crlf-pong", "asterisk" or
              "carrier-sbc"; or SIM_EDGE_PROFILE
  --help      this text
Every SIM_* variable is read as well (docs/development.md, "Configuration", lists them).`;

/** What the command line asks for: the help text, or the environment to run with. */
export type CliRequest = { help: true } | { help: false; env: Record<string, string | undefined> };

/**
 * Reads `argv` (without node and the script) over `env`.
 * @throws ConfigError with one line for an unknown flag, a flag without its value, or a stray argument.
 */
export function parseCli(argv: readonly string[], env: Record<string, string | undefined>): CliRequest {
  let values: { port?: string | undefined; 'api-key'?: string | undefined; 'media-addresses'?: string | undefined; 'edge-profile'?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { port: { type: 'string' }, 'api-key': { type: 'string' }, 'media-addresses': { type: 'string' }, 'edge-profile': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    // Node's own words name the flag ("Unknown option '--prot'"); the hint says where the list is.
    throw new ConfigError(`simulator: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}; run with --help for the flags`);
  }
  if (values.help) return { help: true };
  const given: Record<string, string> = {};
  for (const [flag, variable] of Object.entries(FLAGS)) {
    const value = values[flag as keyof typeof FLAGS];
    if (value !== undefined) given[variable] = value;
  }
  return { help: false, env: { ...env, ...given } };
}

/** A configuration error about a variable the command line set, told by its flag: `--port must be …`. */
export function inFlagTerms(error: ConfigError, argv: readonly string[]): ConfigError {
  for (const [flag, variable] of Object.entries(FLAGS)) {
    const prefix = `configuration: ${variable} `;
    if (error.message.startsWith(prefix) && argv.some((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`))) {
      return new ConfigError(`simulator: --${flag} ${error.message.slice(prefix.length)}`);
    }
  }
  return error;
}
