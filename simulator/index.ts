/**
 * The simulator's entry for a process that embeds it: `npm start` (server-proxy/main.ts) imports it
 * dynamically, and only when no VOICE_BASE_URL is set, so a deployment never loads werift or ws. Its own
 * configuration (SIM_*) and `startSimulator`; `npm run simulator` is simulator/main.ts.
 */
export { describeApiKey, parseSimulatorConfig, SIMULATOR_CONFIG_VARIABLES, type SimulatorConfig } from './config.js';
export { startSimulator, type RunningSimulator, type SimulatorOptions } from './server.js';
