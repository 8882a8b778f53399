import { ConfigError } from '../contract/environment.js';
import { describeApiKey, parseSimulatorConfig } from './config.js';
import { startSimulator } from './server.js';

/** `npm run simulator`: the simulated voice service alone on SIM_PORT, with SIM_API_KEY. */
async function main(): Promise<void> {
  const config = parseSimulatorConfig(process.env);
  const simulator = await startSimulator(config);
  console.log(`simulator on ${simulator.url}`);
  console.log(`  VOICE_BASE_URL=${simulator.baseUrl}`);
  console.log(`  API key: ${describeApiKey(config, process.env)}`);
  const stop = () => void simulator.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : `simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
