import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CONFIG_VARIABLES } from '../demo/server/config.js';
import { SIMULATOR_CONFIG_VARIABLES } from '../simulator/config.js';

/**
 * Starts the app exactly as `npm start` runs it (the demo's server with its embedded simulator) on free loopback
 * ports, for the e2e suite and the benchmark. `stop()` ends it by PID.
 */

export interface RunningApp {
  /** The demo and proxy, e.g. http://127.0.0.1:41234 */
  demo: string;
  /** The simulator (REST under /api, SIP at /sip, control API at /__sim). */
  sim: string;
  /** The app's process id (proxy and embedded simulator share it). */
  pid: number;
  /** Resolves with the exit code once the app has exited (null: killed by a signal). */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * The environment of an app a test starts: this process's, without any variable of the proxy's or the
 * simulator's configuration (`CONFIG_VARIABLES`, `SIMULATOR_CONFIG_VARIABLES`), plus exactly `env`. A
 * `SIM_API_KEY` or `PORT` exported in the caller's shell (as a user of `npm run simulator` has) then changes
 * nothing the test runs against.
 */
export function appEnvironment(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const configuration = new Set<string>([...CONFIG_VARIABLES, ...SIMULATOR_CONFIG_VARIABLES]);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !configuration.has(name)));
  return Object.fromEntries(Object.entries({ ...inherited, ...env }).filter(([, value]) => value !== undefined));
}

/**
 * Starts the app on free ports with the configuration `env` and nothing else of the caller's (see
 * {@link appEnvironment}); resolves once it listens. A variable given as `undefined` is left unset, so the app
 * takes its own default for it.
 */
export async function startApp(env: Record<string, string | undefined> = {}): Promise<RunningApp> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/server/main.ts'], {
    // A JSON line per request would bury what a test prints: only the notices, unless a test asks for more.
    // The suite's browsers pair on loopback by their switches: the calls' audio stays on 127.0.0.1 unless a test
    // asks for `npm start`'s own default (SIM_MEDIA_ADDRESSES=host).
    env: appEnvironment({ PORT: '0', SIM_PORT: '0', LOG_LEVEL: 'warn', SIM_MEDIA_ADDRESSES: 'loopback', ...env }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The demo's line comes first, then the embedded simulator's (none with VOICE_BASE_URL).
  const embedded = !env.VOICE_BASE_URL;
  const urls = await new Promise<{ demo: string; sim: string }>((resolve, reject) => {
    let sim = '';
    let demo = '';
    // Started from source through tsx: on a busy machine the compile alone outlasts a quiet machine's start.
    const timer = setTimeout(() => reject(new Error('the app did not start within 90 s')), 90_000);
    child.once('exit', (code) => reject(new Error(`the app exited early with code ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (process.env.E2E_VERBOSE) console.log(`[app] ${line}`);
      sim ||= /^simulator on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
      demo ||= /^demo on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
      if (demo && (sim || !embedded)) {
        clearTimeout(timer);
        resolve({ demo, sim });
      }
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    ...urls,
    pid: child.pid ?? 0,
    exited,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // The 5 s grace is cleared once the app has gone, so a stopped app leaves no timer behind.
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([exited, new Promise((resolve) => (grace = setTimeout(resolve, 5000)))]);
      clearTimeout(grace);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
