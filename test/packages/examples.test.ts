import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRestGuardedBy, packPackages, simulatorBaseUrl } from './support.js';

/**
 * The examples under examples/, each run as an app outside this repository would run it: copied out of the
 * tree, installed with `npm ci` from its own lockfile and from the tarballs `npm pack` just made (its
 * `file:../../.packs/*.tgz` dependencies), then tested with its own `npm test`.
 *
 * @remarks
 * Copied out, an example cannot resolve anything from this repository's node_modules by walking up. Its
 * lockfile names our tarballs without an integrity: npm would otherwise install the copy it cached the first
 * time, not the tarball just packed.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = ['vite-ts', 'express'];

let work: string;
/** Runs a command; a failure throws with everything it printed, so the example's own failing test shows. */
function run(cwd: string, command: string, args: string[], env: Record<string, string> = {}): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...env } });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'voice-browser-examples-'));
  mkdirSync(join(work, '.packs'));
  packPackages(join(work, '.packs'));
  for (const example of EXAMPLES) {
    cpSync(join(ROOT, 'examples', example), join(work, 'examples', example), { recursive: true, filter: (path) => !/\/(node_modules|dist|test-results)$/.test(path) });
  }
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(EXAMPLES)('examples/%s', (example) => {
  it('names our packages by their packed tarballs, without an integrity npm would trust over the tarball', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'examples', example, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string; integrity?: string }> };
    const ours = Object.values(lock.packages).filter((entry) => entry.resolved?.startsWith('file:'));
    expect(ours.length).toBeGreaterThan(0);
    expect(ours.filter((entry) => entry.integrity !== undefined)).toEqual([]);
  });

  it('installs from its lockfile and the tarballs, and passes its own tests', () => {
    const dir = join(work, 'examples', example);
    run(dir, 'npm', ['ci', '--prefer-offline', '--loglevel=error']);
    // Everything the example's tests rely on is set here; nothing comes from the shell.
    const out = run(dir, 'npm', ['test'], { CI: 'true', CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', FIREFOX_PATH: process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr' });
    expect(out).toMatch(/passed/);
  });
});

describe('the simulator installed in an example', () => {
  it('serves from `npx voice-browser-simulator`: REST with the key it was given, 401 without', async () => {
    const dir = join(work, 'examples', 'express'); // installed by the test above
    const key = `vsk_ExampleKey${'0'.repeat(22)}`;
    const child = spawn('npx', ['--no-install', 'voice-browser-simulator', '--port', '0', '--api-key', key], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    try {
      await expectRestGuardedBy(await simulatorBaseUrl(child), key);
    } finally {
      // npx runs the bin in a child of its own: stop the whole group this test started.
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    }
  });
});
