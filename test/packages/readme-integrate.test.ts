import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_LAUNCH } from '../../e2e/browsers.js';
import { packPackages, simulatorBaseUrl } from './support.js';

/**
 * README's "Integrate in ten minutes", run as a newcomer runs it: every block after an `integrate:` marker is
 * copied out of the README as written, the commands run in bash in an empty folder (the install from the
 * tarballs `npm run pack` makes), the files are written into the app, the simulator and the server are started
 * with the README's own commands, and a real Chromium connects, calls and hangs up on the page.
 *
 * @remarks
 * Only what a test must change is changed: the ports (the README's 8091 and 3000 become free ones, the test
 * listens on loopback only) and the `npm ci && npm run pack` line, for which the tarballs are packed here from
 * the build `npm test` already made.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const README_PORT = 8091;

/** The section's blocks by their marker (`integrate:server.js` gives `server.js`), indentation removed. */
function integrateBlocks(readme: string): Map<string, string> {
  const section = /^## Integrate in ten minutes\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const blocks = new Map<string, string>();
  for (const [, name, indent, body] of section.matchAll(/<!-- integrate:(\S+) -->\n( *)```\w*\n([\s\S]*?)\n *```/g)) {
    const lines = (body ?? '').split('\n').map((line) => (line.startsWith(indent ?? '') ? line.slice((indent ?? '').length) : line));
    blocks.set(name ?? '', `${lines.join('\n')}\n`);
  }
  return blocks;
}

const blocks = integrateBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
const block = (name: string): string => {
  const text = blocks.get(name);
  if (text === undefined) throw new Error(`README's Integrate section has no block marked integrate:${name}`);
  return text;
};

/** npm as the test runs it: no notices, its cache first (the examples' install has filled it). */
const NPM_ENV = { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_prefer_offline: 'true', npm_config_loglevel: 'error' };

let work: string;
let repo: string;
let app: string;
const started: Array<ChildProcessByStdio<null, Readable, Readable>> = [];
let browser: Browser | undefined;

/** Runs README commands in bash (each line as written, stopping at the first that fails); throws with what they printed. */
function bash(cwd: string, script: string, env: Record<string, string> = {}): string {
  try {
    return execFileSync('bash', ['-euo', 'pipefail', '-c', script], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NPM_ENV, ...env } });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`README commands failed in ${cwd}:\n${script}\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

/** Starts a README command in bash, in a process group of its own so it stops whole. */
function start(cwd: string, command: string, env: Record<string, string> = {}): ChildProcessByStdio<null, Readable, Readable> {
  const child = spawn('bash', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NPM_ENV, ...env } });
  started.push(child);
  return child;
}

/** What the server prints once it listens: the address to open. */
function serverUrl(child: ChildProcessByStdio<null, Readable, Readable>): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let said = '';
    const hear = (chunk: Buffer) => {
      said += chunk.toString();
      const url = /open (http:\/\/127\.0\.0\.1:\d+)/.exec(said)?.[1];
      if (url) resolveUrl(url);
    };
    child.stdout.on('data', hear);
    child.stderr.on('data', hear);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${said}`)));
  });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'voice-browser-readme-'));
  // The clone: only its .packs/ matters to the app's install.
  repo = join(work, 'voice-browser');
  mkdirSync(join(repo, '.packs'), { recursive: true });
  packPackages(join(repo, '.packs'));
  app = join(work, 'my-voice-app');
});

afterAll(async () => {
  await browser?.close();
  // Only the groups this file started, by their ids.
  for (const child of started) if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

describe("README's Integrate in ten minutes", () => {
  it('packs with the command it names, into the folder it installs from', () => {
    const pack = block('pack');
    expect(pack).toMatch(/^npm ci && npm run pack\b/m);
    expect(pack).toContain('PACKS="$PWD/.packs"');
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.pack).toContain('--pack-destination .packs');
  });

  it('installs, serves the page and makes a call in Chromium with the commands and files as written', async () => {
    // The pack block's other lines (PACKS) and the install block, in one shell as the README has them.
    const packLines = block('pack')
      .split('\n')
      .filter((line) => !line.startsWith('npm '))
      .join('\n');
    bash(repo, `${packLines}\n${block('install')}`);
    for (const file of ['server.js', 'public/index.html', 'public/phone.js']) {
      mkdirSync(dirname(join(app, file)), { recursive: true });
      writeFileSync(join(app, file), block(file));
    }

    const simulatorCommand = block('simulator').trim();
    expect(simulatorCommand).toContain(`--port ${README_PORT}`);
    // Its audio on loopback alone, as the suite's Chromium (started with loopback switches) pairs there, so no check
    // goes to this machine's network address.
    const simulator = start(app, simulatorCommand.replace(`--port ${README_PORT}`, '--port 0'), { SIM_MEDIA_ADDRESSES: 'loopback' });
    let printed = '';
    simulator.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const baseUrl = await simulatorBaseUrl(simulator);

    // The server runs with the base URL and the key the simulator printed, as the README tells.
    const runCommand = block('run').trim();
    expect(runCommand).toContain(`VOICE_BASE_URL=http://127.0.0.1:${README_PORT}/api`);
    const key = /VOICE_API_KEY=(\S+)/.exec(runCommand)?.[1] ?? 'none in the command';
    expect(printed).toContain(`API key: ${key}`);
    const server = start(app, runCommand.replace(`http://127.0.0.1:${README_PORT}/api`, baseUrl), { PORT: '0' });
    const url = await serverUrl(server);

    browser = await chromium.launch(CHROMIUM_LAUNCH);
    const page = await (await browser.newContext()).newPage();
    await page.goto(url);
    const status = () => page.locator('#status').textContent();
    await page.click('#connect');
    await expect.poll(status, { timeout: 30_000 }).toBe('Phone: ready');
    await page.click('#call');
    await expect.poll(status, { timeout: 30_000 }).toBe('Call: connected');
    await page.click('#hangup');
    await expect.poll(status, { timeout: 30_000 }).toBe('Call: ended');
  });
});
