import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Starts bench/simulator-main.ts in a process of its own and stops it by its PID, as `startApp`
 * does for the app; it also stops by itself when this process goes away (its stdin closes).
 */

export interface BenchSimulator {
  /** e.g. http://127.0.0.1:41234; REST under `/api`, SIP at `/sip`, control API at `/__sim`. */
  url: string;
  /** CPU seconds the simulator has used so far (user + system). */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/** `quotaPerMinute`: the key's quota a minute; default far above any load. */
export async function startBenchSimulator(options: { quotaPerMinute?: number } = {}): Promise<BenchSimulator> {
  const env = { ...process.env, ...(options.quotaPerMinute ? { BENCH_SIM_QUOTA_PER_MINUTE: String(options.quotaPerMinute) } : {}) };
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/simulator-main.ts'], { stdio: ['pipe', 'pipe', 'inherit'], env });
  const lines = createInterface({ input: child.stdout });
  const cpuReports: Array<(seconds: number) => void> = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bench simulator did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`the bench simulator exited early with code ${code}`)));
    lines.on('line', (line) => {
      const cpu = /^cpu (\S+)/.exec(line)?.[1];
      if (cpu !== undefined) cpuReports.shift()?.(Number(cpu));
      const found = /^simulator on (http:\/\/\S+)/.exec(line)?.[1];
      if (!found) return;
      clearTimeout(timer);
      resolve(found);
    });
  });
  return {
    url,
    cpuSeconds: () =>
      new Promise((resolve) => {
        cpuReports.push(resolve);
        child.stdin?.write('cpu\n');
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
