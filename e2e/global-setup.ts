import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Starts the app exactly as `npm start` runs it (server-proxy/main.ts, embedded simulator) on free loopback
 * ports, and hands the URLs to the tests through the environment. The returned teardown stops it by PID.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server-proxy/main.ts'], {
    // One key serves every spec's user: the suite gets a quota above spec 8's default (tested in test/simulator).
    env: { ...process.env, PORT: '0', SIM_PORT: '0', SIM_QUOTA_PER_MINUTE: '100000', SIM_QUOTA_PER_HOUR: '1000000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const urls = await new Promise<{ demo: string; sim: string }>((resolve, reject) => {
    let sim = '';
    const timer = setTimeout(() => reject(new Error('e2e: the app did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`e2e: the app exited early with code ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (process.env.E2E_VERBOSE) console.log(`[app] ${line}`);
      sim ||= /^simulator on (http:\/\/\S+)/.exec(line)?.[1] ?? '';
      const demo = /^demo on (http:\/\/\S+)/.exec(line)?.[1];
      if (demo) {
        clearTimeout(timer);
        resolve({ demo, sim });
      }
    });
  });
  process.env.E2E_BASE_URL = urls.demo;
  process.env.E2E_SIM_URL = urls.sim;
  return async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
}
