/**
 * What `npm start` (the demo's server) needs to embed the simulator, imported dynamically and only when no
 * VOICE_BASE_URL is set, so a deployment never loads werift or ws: its configuration from SIM_* and the
 * service itself. The package's public entry is `startSimulator`'s module.
 */
export { describeApiKey, describeMediaAddresses, describeQuota, parseSimulatorConfig, startedKeyQuota, SIMULATOR_CONFIG_VARIABLES, type SimulatorConfig } from './config.js';
export { startSimulator } from './server.js';
