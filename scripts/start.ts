import { ConfigError } from '../contract/environment.js';
import { parseConfig } from '../demo/server/config.js';
import { buildChanged } from './build-changed.js';
import { firstPortProblem, type WantedPort } from './port-check.js';

/**
 * `npm start`: checks the configuration and that its ports are free, builds what changed, then runs the demo
 * server in this same process, so Ctrl-C or one PID stops everything.
 */

/**
 * What the demo server serves: the library's files and the demo page. The proxy and the simulator run from
 * their sources, so their own builds (for the packages) are not waited for here.
 */
const START_STEPS = ['build:lib', 'build:demo'];

/** The address the embedded simulator listens on (the simulator server's default). */
const SIMULATOR_HOST = '127.0.0.1';

/**
 * The ports start-up will take, from the same parsing it will use; a bad variable stops here with its line. The
 * simulator's configuration is imported only without VOICE_BASE_URL, so a deployment loads no file of simulator/.
 */
async function wantedPorts(): Promise<WantedPort[]> {
  const config = parseConfig(process.env);
  const ports: WantedPort[] = [{ variable: 'PORT', host: config.host, port: config.port }];
  if (config.voice) return ports;
  const { parseSimulatorConfig } = await import('../simulator/config.js');
  return [...ports, { variable: 'SIM_PORT', host: SIMULATOR_HOST, port: parseSimulatorConfig(process.env).port }];
}

try {
  const problem = await firstPortProblem(await wantedPorts());
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  await buildChanged(START_STEPS);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `start-up: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
await import('../demo/server/main.js');
