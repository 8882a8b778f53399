import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { ensureRedisServer } from './ensure-redis.js';

/**
 * A private `redis-server` for the tests and the bench: installed if missing ({@link ensureRedisServer}), started on a
 * free loopback port with nothing persisted, and stopped by its own PID.
 */

export interface RunningRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function waitForReady(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server on port ${port} did not start: ${output.slice(-500)}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code} before it was ready: ${output.slice(-500)}`));
    });
  });
}

/** Starts a private redis-server on 127.0.0.1 and a free port. */
export async function startRedis(): Promise<RunningRedis> {
  const binary = ensureRedisServer();
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForReady(child, port);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        process.kill(child.pid ?? 0, 'SIGTERM');
      }),
  };
}
