import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * Node servers on a free 127.0.0.1 port, for tests that mount the proxy in a framework (Express, `node:http`)
 * or receive the simulator's webhooks: nothing listens beyond loopback, and nothing outlives its test.
 */

/** A server listening on loopback: its origin, and how to stop it (its open connections ended first). */
export interface LoopbackServer {
  url: string;
  close(): Promise<void>;
}

/** Listens with `listener` (a `node:http` listener, or an Express app) on a free loopback port. */
export async function listenOnLoopback(listener: RequestListener): Promise<LoopbackServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** {@link listenOnLoopback} for the servers of each test of a file: every one is closed after its test. */
export function useLoopbackServers(): (listener: RequestListener) => Promise<string> {
  const open: LoopbackServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return async (listener) => {
    const server = await listenOnLoopback(listener);
    open.push(server);
    return server.url;
  };
}
