import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { createBareRelay } from './bare-relay.js';

/**
 * The bare relay (bare-relay.ts) in a process of its own, as the proxy runs in the bench. Prints
 * `relay on <url>`; stops on SIGTERM or when its parent's pipe closes.
 */

const [upstream, apiKey] = process.argv.slice(2);
if (!upstream || !apiKey) throw new Error('usage: bare-relay-main.ts <upstream origin> <api key>');
const server = createBareRelay(upstream, apiKey);
server.listen(0, '127.0.0.1', () => console.log(`relay on http://127.0.0.1:${(server.address() as AddressInfo).port}`));

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
createInterface({ input: process.stdin }).on('close', stop);
