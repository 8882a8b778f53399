import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `@voice-browser/simulator` as packed (DESIGN.md, "What integrators install"): compiled JavaScript that runs
 * on plain `node`, its bin `voice-browser-simulator` included.
 *
 * @remarks
 * The tarball is unpacked beside a `node_modules` that links to this repository's, so its dependencies
 * resolve without the network (an offline `npm install` of werift's tree needs the registry's metadata).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const KEY = 'vsk_PackageTestKey000000000000000000';

let work: string;
let unpacked: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'voice-browser-simulator-package-'));
  // The build already ran (npm test builds first).
  execFileSync('npm', ['pack', '-w', 'simulator', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'], { cwd: ROOT });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz')) ?? '';
  unpacked = join(work, 'app', 'simulator');
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['-xzf', join(work, tarball), '-C', unpacked, '--strip-components=1']);
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'app', 'node_modules'), 'dir');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the @voice-browser/simulator package', () => {
  it('ships compiled JavaScript, no TypeScript source', () => {
    const files = readdirSync(unpacked, { recursive: true, encoding: 'utf8' });
    expect(files).toContain(join('dist', 'simulator', 'main.js'));
    expect(files).toContain(join('dist', 'contract', 'http-error.js'));
    expect(files.filter((file) => file.endsWith('.ts') || file.endsWith('.map'))).toEqual([]);
  });

  it('serves the simulator from its bin on plain node: REST with the key, 401 without', async () => {
    const child = spawn(process.execPath, [join(unpacked, 'dist/simulator/main.js'), '--port', '0', '--api-key', KEY], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let out = '';
        child.once('exit', (code) => reject(new Error(`the simulator exited with ${code}: ${out}`)));
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const base = /VOICE_BASE_URL=(\S+)/.exec(out)?.[1];
          if (base && out.includes('API key:')) resolveUrl(base);
        });
      });
      const read = (headers: Record<string, string>) => fetch(`${url}/v1/voice/browser-sessions?externalSubject=someone`, { headers });
      expect((await read({ 'x-api-key': KEY })).status).toBe(200);
      expect((await read({})).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
