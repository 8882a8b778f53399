import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { processCpuSeconds } from './machine.js';

/**
 * Starts bench/simulator-main.ts in a process of its own and stops it by its PID, as scripts/start-app.ts
 * does for the app; the child also stops by itself when this process goes away (its stdin closes).
 */

export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface BenchSimulator {
  /** e.g. http://127.0.0.1:41234; REST under `/api`, SIP at `/sip`, control API at `/__sim`. */
  url: string;
  pid: number;
  /** CPU seconds the process has used so far (user + system). */
  cpuSeconds(): number;
  /** Starts a window of the simulator's event-loop delay; {@link readLoopDelay} reports it. */
  resetLoopDelay(): void;
  readLoopDelay(): Promise<LoopDelay>;
  stop(): Promise<void>;
}

export async function startBenchSimulator(): Promise<BenchSimulator> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/simulator-main.ts'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bench simulator did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`the bench simulator exited early with code ${code}`)));
    lines.on('line', (line) => {
      const found = /^simulator on (http:\/\/\S+)/.exec(line)?.[1];
      if (!found) return;
      clearTimeout(timer);
      resolve(found);
    });
  });
  const reports: Array<(delay: LoopDelay) => void> = [];
  lines.on('line', (line) => {
    const [p50Ms = NaN, p99Ms = NaN, maxMs = NaN] = /^loop (.*)$/.exec(line)?.[1]?.split(' ').map(Number) ?? [];
    if (/^loop /.test(line)) reports.shift()?.({ p50Ms, p99Ms, maxMs });
  });
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    cpuSeconds: () => processCpuSeconds(pid),
    resetLoopDelay: () => void child.stdin.write('loop-reset\n'),
    readLoopDelay: () =>
      new Promise((resolve) => {
        reports.push(resolve);
        child.stdin.write('loop-report\n');
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
