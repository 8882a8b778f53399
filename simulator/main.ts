#!/usr/bin/env node
import { ConfigError } from '../contract/environment.js';
import { inFlagTerms, parseCli, USAGE } from './cli.js';
import { describeApiKey, describeMediaAddresses, parseSimulatorConfig } from './config.js';
import { startSimulator } from './server.js';

/**
 * `npm run simulator`: the simulated voice service alone, on --port / SIM_PORT, with --api-key / SIM_API_KEY, its
 * calls' audio on --media-addresses / SIM_MEDIA_ADDRESSES.
 */
async function main(argv: readonly string[]): Promise<void> {
  const request = parseCli(argv, process.env);
  if (request.help) return void console.log(USAGE);
  let config;
  try {
    config = parseSimulatorConfig(request.env);
  } catch (error) {
    throw error instanceof ConfigError ? inFlagTerms(error, argv) : error;
  }
  const simulator = await startSimulator(config);
  console.log(`simulator on ${simulator.url}`);
  console.log(`  VOICE_BASE_URL=${simulator.baseUrl}`);
  console.log(`  media on ${describeMediaAddresses(config)}`);
  console.log(`  SIP edge: ${config.edgeProfile} (SIM_EDGE_PROFILE, --edge-profile)`);
  console.log(`  API key: ${describeApiKey(config, request.env)}`);
  const stop = () => void simulator.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : `simulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
