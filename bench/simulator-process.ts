import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { processCpuSeconds } from './machine.js';

/**
 * Starts bench/simulator-main.ts (and the bare relay, bench/bare-relay-main.ts) in a process of its own and
 * stops it by its PID, as scripts/start-app.ts does for the app; each child also stops by itself when this
 * process goes away (its stdin closes).
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

/** A bench process of ours: its URL (from its first `<what> on <url>` line), PID, output and stop. */
interface BenchChild {
  url: string;
  pid: number;
  child: ChildProcess;
  lines: Interface;
  stop(): Promise<void>;
}

/** Runs `script` with `args` in a process of its own until it prints `<what> on <url>`; stopped by PID. */
async function startBenchChild(script: string, args: string[], what: string): Promise<BenchChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const ready = new RegExp(`^${what} on (http://\\S+)`);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bench ${what} did not start within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`the bench ${what} exited early with code ${code}`)));
    lines.on('line', (line) => {
      const found = ready.exec(line)?.[1];
      if (!found) return;
      clearTimeout(timer);
      resolve(found);
    });
  });
  return {
    url,
    pid: child.pid ?? 0,
    child,
    lines,
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

export async function startBenchSimulator(): Promise<BenchSimulator> {
  const { url, pid, child, lines, stop } = await startBenchChild('bench/simulator-main.ts', [], 'simulator');
  const reports: Array<(delay: LoopDelay) => void> = [];
  lines.on('line', (line) => {
    const [p50Ms = NaN, p99Ms = NaN, maxMs = NaN] = /^loop (.*)$/.exec(line)?.[1]?.split(' ').map(Number) ?? [];
    if (/^loop /.test(line)) reports.shift()?.({ p50Ms, p99Ms, maxMs });
  });
  return {
    url,
    pid,
    cpuSeconds: () => processCpuSeconds(pid),
    resetLoopDelay: () => void child.stdin?.write('loop-reset\n'),
    readLoopDelay: () =>
      new Promise((resolve) => {
        reports.push(resolve);
        child.stdin?.write('loop-report\n');
      }),
    stop,
  };
}

/** bench/bare-relay-main.ts in its own process, relaying to `upstream` (an origin) with `apiKey`. */
export async function startBareRelay(upstream: string, apiKey: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const { url, pid, stop } = await startBenchChild('bench/bare-relay-main.ts', [upstream, apiKey], 'relay');
  return { url, pid, stop };
}
