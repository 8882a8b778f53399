/**
 * coturn's life is the simulator's: it stops with the simulator's close and dies with a simulator process that
 * is killed without a chance to stop it; its shared secret is on no command line; and a `turnserver` that cannot
 * be spawned fails the start with a clear error rather than ending the process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureCoturn } from '../../../scripts/ensure-coturn.js';
import { startSimulator } from '../../../simulator/server.js';
import { startCoturn } from '../../../simulator/turn/coturn.js';
import { coturnChildren, commandLine, processGone } from '../support/coturn-processes.js';
import { SIM_TEST_KEY, SimulatorApi } from '../support/sim-api.js';

/** Polls `check` until it holds or a bound passes (a process's end is told by the kernel, not awaited). */
async function eventually(check: () => boolean): Promise<boolean> {
  for (let tries = 0; tries < 100 && !check(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 50));
  return check();
}

describe('coturn behind the simulator', () => {
  it('keeps its secret off its command line and stops, files and all, with the simulator', async () => {
    ensureCoturn();
    const sim = await startSimulator({ apiKey: SIM_TEST_KEY, port: 0, mediaAddresses: 'loopback' });
    try {
      const set = await new SimulatorApi(sim).control('PUT', '/network', { profile: 'turn-udp' });
      expect(set.status).toBe(200);
      const [pid] = coturnChildren(process.pid);
      if (pid === undefined) throw new Error('no turnserver child of this process after a TURN profile was set');
      const args = commandLine(pid);
      expect(args.join(' ')).not.toMatch(/auth-secret/);
      expect(args).toContain('--no-tcp-relay');
      const config = args[args.indexOf('-c') + 1] ?? '';
      expect(statSync(config).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(config)).mode & 0o777).toBe(0o700);

      await sim.close();
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
      expect(existsSync(dirname(config))).toBe(false);
    } finally {
      await sim.close();
    }
  });

  it('dies with a simulator process killed without warning', async () => {
    ensureCoturn();
    const child = spawn('node_modules/.bin/tsx', ['test/simulator/support/simulator-with-turn.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = child.pid ?? 0;
    let turnPid: number | undefined;
    try {
      const ready = await new Promise<string>((resolve) => child.stdout.setEncoding('utf8').once('data', (line: string) => resolve(line.trim())));
      expect(ready).toBe('ready');
      // tsx runs the script in a child Node of its own: coturn's parent is that one.
      const parents = [pid, ...readChildren(pid)];
      turnPid = parents.flatMap(coturnChildren)[0];
      expect(turnPid).toBeDefined();
      for (const parent of parents.reverse()) process.kill(parent, 'SIGKILL');
      expect(await eventually(() => processGone(turnPid ?? 0))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      if (turnPid !== undefined && !processGone(turnPid)) process.kill(turnPid, 'SIGTERM');
    }
  }, 30_000);

  it('fails the start with a clear error when it cannot be spawned or run', async () => {
    ensureCoturn();
    // A file that exists but cannot be run: the start fails once the launch exits.
    await expect(startCoturn({ binary: '/dev/null' })).rejects.toThrow(/coturn did not start/);
    // A PATH with openssl alone: the launcher itself cannot be spawned, an 'error' event rather than an exit.
    const bin = await mkdtemp(join(tmpdir(), 'no-setpriv-'));
    const path = process.env.PATH;
    try {
      await symlink('/usr/bin/openssl', join(bin, 'openssl'));
      process.env.PATH = bin;
      await expect(startCoturn()).rejects.toThrow(/coturn could not be spawned: .*ENOENT/);
    } finally {
      process.env.PATH = path;
      await rm(bin, { recursive: true, force: true });
    }
  });
});

/** The PIDs whose parent is `parentPid`. */
function readChildren(parentPid: number): number[] {
  try {
    return readFileSync(`/proc/${parentPid}/task/${parentPid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
