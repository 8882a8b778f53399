import { ConfigError, parseConfig } from '../config.js';
import { startSimulator } from './server.js';

/** `npm run simulator`: the simulated voice service alone on SIM_PORT, with SIM_API_KEY. */
async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const simulator = await startSimulator({ apiKey: config.simApiKey, port: config.simPort, quota: config.simQuota, ...config.simTimings });
  console.log(`simulator on ${simulator.url}`);
  console.log(`  VOICE_BASE_URL=${simulator.baseUrl}`);
  console.log(`  API key: ${config.simApiKey}${process.env.SIM_API_KEY ? '' : ' (the default; set SIM_API_KEY to change it)'}`);
  const stop = () => void simulator.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : `simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
