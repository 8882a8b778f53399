import { createServer, type Server } from 'node:http';
import { Agent, request } from 'undici';

/**
 * The floor under the proxy's figures: the least a relay on this machine can be. Every request is sent on to
 * `<upstream origin>` with the API key, through an undici keep-alive pool like the proxy's, and the answer's
 * status and body come back; no login, no limits, no ownership check, no routing.
 */
export function createBareRelay(upstream: string, apiKey: string): Server {
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
  server.once('close', () => void pool.close());
  return server;
}
