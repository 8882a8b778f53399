import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULE_RESOLUTIONS, typeCheckApp } from './support.js';

/**
 * `voice-browser` as an app installs it: packed by `npm pack` from
 * the built library, installed into an empty app from that tarball, then imported and type-checked there.
 *
 * @remarks
 * Nothing leaves this machine: sip.js, the package's one dependency, is packed from this repository's own
 * node_modules and installed beside it, with npm `--offline`.
 */

const ROOT = resolve(import.meta.dirname, '../..');
/** What a page's install must never bring: the server's and the simulator's dependencies. */
const SERVER_PACKAGES = ['werift', 'ws', 'hono', '@hono/node-server', 'redis', 'undici', 'zod', 'tsx'];

let work: string;
let app: string;
const npm = (cwd: string, ...args: string[]) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
const tarballIn = (folder: string, prefix: string) => join(folder, readdirSync(folder).find((name) => name.startsWith(prefix) && name.endsWith('.tgz')) ?? '');

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'voice-browser-package-'));
  // The build already ran (npm test builds first); packing it again would only rebuild it.
  npm(ROOT, 'pack', '-w', 'lib', '--ignore-scripts', '--pack-destination', work);
  npm(ROOT, 'pack', join(ROOT, 'node_modules/sip.js'), '--ignore-scripts', '--pack-destination', work);
  app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', version: '1.0.0', private: true, type: 'module' }));
  npm(app, 'install', '--offline', '--ignore-scripts', tarballIn(work, 'voice-browser-'), tarballIn(work, 'sip.js-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the voice-browser package', () => {
  it('ships the built library and its types, nothing of the repository', () => {
    const shipped = execFileSync('tar', ['-tzf', tarballIn(work, 'voice-browser-')], { encoding: 'utf8' }).trim().split('\n');
    expect(shipped).toContain('package/dist/esm/index.js');
    expect(shipped).toContain('package/dist/types/index.d.ts');
    expect(shipped).toContain('package/dist/voice-browser.min.js');
    expect(shipped).toContain('package/dist/esm/testing.js');
    expect(shipped).toContain('package/dist/types/testing/index.d.ts');
    expect(shipped).toContain('package/LICENSE');
    // The contract's declarations ship beside the library's, which re-export its lists (no JavaScript of it: bundled).
    expect(shipped.filter((file) => file.startsWith('package/dist/contract/') && !file.endsWith('.d.ts'))).toEqual([]);
    expect(shipped.filter((file) => !/^package\/(dist\/(esm|types|contract)\/|dist\/voice-browser\.min\.js$|package\.json$|README\.md$|LICENSE$)/.test(file))).toEqual([]);
    expect(shipped.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it("installs with sip.js and @noble/hashes alone (SHA-256 digest, RFC 8760): nothing of the server's or the simulator's dependencies", () => {
    const installed = npm(app, 'ls', '--all', '--parseable')
      .trim()
      .split('\n')
      .filter((path) => path.includes('/node_modules/'))
      .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(installed.sort()).toEqual(['@noble/hashes', 'sip.js', 'voice-browser']);
    expect(installed.filter((name) => SERVER_PACKAGES.includes(name))).toEqual([]);
  });

  it('imports on plain Node without touching a browser global, with every entry', () => {
    const script = [
      "const lib = await import('voice-browser');",
      "const advice = await import('voice-browser/advice');",
      "const testing = await import('voice-browser/testing');",
      "console.log(JSON.stringify({ create: typeof lib.createVoiceBrowser, backend: typeof lib.createFetchBackend, codes: lib.VOICE_ERROR_CODES.length, advice: Object.keys(advice).length > 0, kit: typeof testing.createTestVoiceBrowser }));",
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ create: 'function', backend: 'function', codes: expect.any(Number), advice: true, kit: 'function' });
  });

  it('drives the real helper through a call with its testing kit, in plain Node: no server, microphone or WebRTC', () => {
    const script = [
      "import { createTestVoiceBrowser } from 'voice-browser/testing';",
      'const { voice, backend, sip, clock } = createTestVoiceBrowser();',
      'await voice.connect();',
      "const call = await voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: 'k1' });",
      'const invite = sip.invite(call.id);',
      "backend.setCall(call.id, { state: 'connected' });",
      'await clock.advance(1000);',
      'const connected = voice.status().call.state;',
      "backend.setCall(call.id, { state: 'ended' });",
      'await clock.advance(1000);',
      'console.log(JSON.stringify({ connected, invite: invite.outcome, ended: voice.status().call.state, busy: voice.status().busy }));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ connected: 'connected', invite: 'accepted', ended: 'ended', busy: false });
  });

  for (const moduleResolution of MODULE_RESOLUTIONS) {
    it(`type-checks an app with tsc, strict and without skipLibCheck (moduleResolution ${moduleResolution})`, () => {
      const source = [
        "import { createVoiceBrowser, createFetchBackend, isVoiceBrowserError, type VoiceBrowserStatus } from 'voice-browser';",
        "import { errorAdvice } from 'voice-browser/advice';",
        "import { createTestVoiceBrowser, httpError } from 'voice-browser/testing';",
        "const kit = createTestVoiceBrowser({ onStatus: (status) => console.log(status.busy) });",
        "kit.backend.fail('createCall', httpError(403, 'compliance_dnc'));",
        'void kit.clock.advance(1000).then(() => kit.voice.status().call);',
        'const voice = createVoiceBrowser({ backend: createFetchBackend(), onStatus: (status: VoiceBrowserStatus) => console.log(status.connection) });',
        "voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: 'k' }).catch((error: unknown) => {",
        '  if (isVoiceBrowserError(error)) console.log(error.code, errorAdvice(error.code));',
        '});',
        'export {};',
      ];
      expect(typeCheckApp(app, source, moduleResolution)).toBe('');
    });
  }
});
