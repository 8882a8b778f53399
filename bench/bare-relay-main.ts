import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';

/**
 * The floor under the proxy's figures: the least a relay on this machine can be, run in its own process as
 * the proxy is. Every request is sent on to `<upstream origin>` with the API key, through the same undici
 * keep-alive pool the proxy uses, and the answer's status and body come back; no login, no limits, no
 * ownership check, no routing. Prints `relay on <url>`; stops on SIGTERM or when its parent's pipe closes.
 */

const [upstream, apiKey] = process.argv.slice(2);
if (!upstream || !apiKey) throw new Error('usage: bare-relay-main.ts <upstream origin> <api key>');
const pool = new Agent();

const server = createServer((incoming, outgoing) => {
  request(`${upstream}${incoming.url ?? '/'}`, { method: 'GET', headers: { accept: 'application/json', 'x-api-key': apiKey }, dispatcher: pool })
    .then(async (answer) => {
      const body = await answer.body.text();
      outgoing.writeHead(answer.statusCode, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      outgoing.end(body);
    })
    .catch(() => {
      outgoing.writeHead(502);
      outgoing.end();
    });
});
server.listen(0, '127.0.0.1', () => console.log(`relay on http://127.0.0.1:${(server.address() as AddressInfo).port}`));

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
createInterface({ input: process.stdin }).on('close', stop);
