import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * Starts bench/simulator-main.ts in a process of its own and stops it by its PID, as scripts/start-app.ts
 * does for the app; the child also stops by itself when this process goes away (its stdin closes).
 */

export interface BenchSimulator {
  /** e.g. http://127.0.0.1:41234; REST under `/api`, SIP at `/sip`, control API at `/__sim`. */
  url: string;
  pid: number;
  /** CPU seconds the process has used so far (user + system). */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** Clock ticks a second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, counted after the parenthesised command name). */
export function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

export async function startBenchSimulator(): Promise<BenchSimulator> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/simulator-main.ts'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bench simulator did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`the bench simulator exited early with code ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const found = /^simulator on (http:\/\/\S+)/.exec(line)?.[1];
      if (!found) return;
      clearTimeout(timer);
      resolve(found);
    });
  });
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    cpuSeconds: () => processCpuSeconds(pid),
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
