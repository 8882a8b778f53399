import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKamailio } from './ensure-kamailio.js';
import { freePort } from './start-redis.js';

/**
 * A private Kamailio in front of the simulator, for the tests: installed if missing ({@link ensureKamailio}), started
 * in the foreground with kamailio/kamailio.cfg on free loopback ports (WebSocket for the pages, UDP toward the
 * simulator's UDP side), every file it writes in a temporary directory, and stopped by its own PID.
 */

/** The edge's configuration, beside this script. */
export const KAMAILIO_CONFIG = fileURLToPath(new URL('./kamailio/kamailio.cfg', import.meta.url));

export interface RunningKamailio {
  /** Where the pages connect: `ws://127.0.0.1:<port>`. */
  websocketUrl: string;
  /** The edge's UDP port, toward the simulator. */
  udpPort: number;
  pid: number;
  stop(): Promise<void>;
}

/** A UDP port that was free a moment ago on 127.0.0.1 (the simulator's UDP side is given one before it starts). */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`; rejects after `ms`. */
async function waitForListening(port: number, ms: number, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const gone = exited();
    if (gone) throw new Error(gone);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`kamailio did not listen on 127.0.0.1:${port} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts Kamailio relaying the pages' SIP over WebSocket to the simulator's UDP side at 127.0.0.1:`simulatorUdpPort`;
 * resolves once its WebSocket port accepts connections.
 */
export async function startKamailio(simulatorUdpPort: number): Promise<RunningKamailio> {
  const binary = ensureKamailio();
  const dir = mkdtempSync(join(tmpdir(), 'kamailio-'));
  const [udpPort, wsPort] = [await freeUdpPort(), await freePort()];
  const args = [
    '-f', KAMAILIO_CONFIG,
    // -DD: no daemon, the children forked under this PID; -E: its log on stderr.
    '-DD', '-E',
    '-P', join(dir, 'kamailio.pid'), '-w', dir, '-Y', dir,
    // Shared and private memory in MB: an edge for a few test pages.
    '-m', '32', '-M', '8',
    '-l', `udp:127.0.0.1:${udpPort}`, '-l', `tcp:127.0.0.1:${wsPort}`,
    '-A', `SIM_URI="sip:127.0.0.1:${simulatorUdpPort}"`,
    ...(process.env.E2E_VERBOSE ? ['-A', 'VERBOSE'] : []),
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
    if (process.env.E2E_VERBOSE) process.stderr.write(`[kamailio] ${chunk.toString()}`);
  });
  const stop = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      process.kill(child.pid ?? 0, 'SIGTERM');
    });
  try {
    await waitForListening(wsPort, 10_000, () => (child.exitCode !== null ? `kamailio exited with ${child.exitCode}: ${log.slice(-1000)}` : undefined));
  } catch (error) {
    await stop();
    throw error;
  }
  return { websocketUrl: `ws://127.0.0.1:${wsPort}`, udpPort, pid: child.pid ?? 0, stop };
}
