import { createClient } from 'redis';

/**
 * The proxy's Redis connection, as both shared stores open it: commands are not queued while the connection
 * is down (`disableOfflineQueue`), so a command then fails at once and the caller decides what that means,
 * instead of a request waiting for Redis to come back; start-up fails at once when Redis cannot be reached,
 * with one line naming where (host and port only: the URL may carry a password), while a connection lost
 * later is retried with backoff.
 */
export async function connectRedis(url: string, connectTimeoutMs = 2000) {
  let connected = false;
  const where = new URL(url).host;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: (retries, cause) => (connected ? Math.min(100 * 2 ** retries, 2000) : new Error(`cannot reach Redis at ${where}: ${cause.message}`)),
    },
  });
  // Without a listener an error event would crash the process; the failed command already reports it.
  client.on('error', () => undefined);
  await client.connect();
  connected = true;
  return client;
}
