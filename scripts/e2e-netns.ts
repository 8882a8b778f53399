import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { testNetworkCommands } from './test-network.js';

/**
 * `npm run test:e2e`: the e2e suite (`playwright test`) in a network namespace of its own, made here
 * ({@link testNetworkCommands}), so the stock-browser projects' Chromium and Firefox, which run with nothing but a fake
 * microphone, send no packet (mDNS multicast included) beyond the machine, and run beside the other projects in
 * one pool of workers. Arguments go on to `playwright test`.
 *
 * As root the namespace is a plain `unshare -n`; otherwise `unshare -rn` makes it inside a user namespace, where
 * the kernel allows that; unshare's own line says why when it is refused.
 */

const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
const root = process.getuid?.() === 0;
const script = [...testNetworkCommands(), 'exec "$@"'].join(' && ');
const child = spawn(
  'unshare',
  [...(root ? ['-n'] : ['-r', '-n']), '--', 'sh', '-c', script, 'e2e-netns', process.execPath, playwright, 'test', ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
child.once('error', (error) => {
  console.error(`e2e: cannot run unshare (util-linux): ${error.message}`);
  process.exit(1);
});
// unshare and ip print their own refusal; Playwright its failures.
child.once('exit', (code) => process.exit(code ?? 1));
