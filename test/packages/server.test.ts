import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULE_RESOLUTIONS, typeCheckApp } from './support.js';

/**
 * `@voice-browser/server` as a server app installs it: packed by
 * `npm pack` from the built package, installed alone into an empty app (its dependencies from the registry or
 * npm's cache), then run on plain node, type-checked, and refused by a browser bundler.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const BROWSER_REFUSAL = '@voice-browser/server cannot go into a browser bundle: it holds your voice API key';

let work: string;
let app: string;
let tarball: string;
const npm = (cwd: string, ...args: string[]) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'voice-browser-server-package-'));
  // The build already ran (npm test builds first); packing it again would only rebuild it.
  npm(ROOT, 'pack', '-w', 'server-proxy', '--ignore-scripts', '--pack-destination', work);
  tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz')) ?? '');
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', version: '1.0.0', private: true, type: 'module' }));
  npm(app, 'install', '--prefer-offline', '--ignore-scripts', tarball);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the @voice-browser/server package', () => {
  it("ships compiled JavaScript and declarations, nothing of the demo's server or the sources", () => {
    const shipped = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(shipped).toContain('package/dist/server-proxy/index.js');
    expect(shipped).toContain('package/dist/server-proxy/index.d.ts');
    expect(shipped).toContain('package/browser.js');
    expect(shipped.filter((file) => !/^package\/(dist\/(server-proxy|contract)(\/[a-z-]+)+\.(js|d\.ts)|browser\.js|package\.json|README\.md|LICENSE)$/.test(file))).toEqual([]);
    expect(shipped.filter((file) => /\/(main|app|demo-[a-z-]+|config|service-check|security-headers)\.(js|d\.ts)$/.test(file))).toEqual([]);
  });

  it('installs without anything of the page or the simulator', () => {
    const installed = npm(app, 'ls', '--all', '--parseable')
      .trim()
      .split('\n')
      .filter((path) => path.includes('/node_modules/'))
      .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(installed).toContain('@voice-browser/server');
    expect(installed.filter((name) => ['werift', 'ws', 'sip.js', 'tsx', '@hono/node-server'].includes(name))).toEqual([]);
  });

  it("runs on plain node: reads the service once at start, refuses a request nobody logged in to, and relays a user's read", () => {
    const script = [
      "import { createServer } from 'node:http';",
      "import { createVoiceProxy } from '@voice-browser/server';",
      'const seen = [];',
      'const upstream = createServer((request, response) => {',
      "  seen.push({ url: request.url, key: request.headers['x-api-key'] });",
      "  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ session: null, call: null }));",
      '});',
      "await new Promise((done) => upstream.listen(0, '127.0.0.1', done));",
      'let user = null;',
      "const proxy = createVoiceProxy({ baseUrl: `http://127.0.0.1:${upstream.address().port}/api`, apiKey: 'vsk_PackageTestKey000000000000000000', authenticate: () => user, log: () => {} });",
      "const nobody = await proxy(new Request('http://127.0.0.1/voice/browser-sessions'));",
      "user = { id: 'ada' };",
      "const ada = await proxy(new Request('http://127.0.0.1/voice/browser-sessions'));",
      'upstream.close();',
      'console.log(JSON.stringify({ nobody: [nobody.status, (await nobody.json()).code], ada: [ada.status, await ada.json()], seen }));',
    ].join('\n');
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' }));
    expect(out.nobody).toEqual([401, 'unauthenticated']);
    expect(out.ada).toEqual([200, { session: null, call: null }]);
    // First the proxy's start-up read of the service, then alice's read.
    expect(out.seen).toEqual([
      { url: '/api/v1/voice/browser-sessions?externalSubject=voice-proxy-start-up-check', key: 'vsk_PackageTestKey000000000000000000' },
      { url: '/api/v1/voice/browser-sessions?externalSubject=ada', key: 'vsk_PackageTestKey000000000000000000' },
    ]);
  });

  for (const moduleResolution of MODULE_RESOLUTIONS) {
    it(`type-checks an app with tsc, strict and without skipLibCheck (moduleResolution ${moduleResolution})`, () => {
      const source = [
        "import { createVoiceProxy, createMemoryRateStore, createRedisRateStore, type Clock, type ProxyUser, type VoiceProxy } from '@voice-browser/server';",
        'const authenticate = async (request: Request): Promise<ProxyUser | null> => (request.headers.has("cookie") ? { id: "ada", name: "Ada" } : null);',
        // An integrator's own clock, typed by the package's name for it.
        'const clock: Clock = { now: () => Date.now(), setTimeout: (run, ms) => setTimeout(run, ms), clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>) };',
        "const proxy: VoiceProxy = createVoiceProxy({ baseUrl: 'https://voice.example.com/api', apiKey: 'vsk_x', authenticate, clock, rateLimit: { perMinute: 80, store: createMemoryRateStore() } });",
        "void proxy(new Request('http://127.0.0.1/voice/browser-sessions')).then((response: Response) => response.status);",
        "void proxy.revokeSessions({ id: 'ada' });",
        "void createRedisRateStore({ url: 'redis://127.0.0.1:6379' }).then((store) => store.hit('k', 1000));",
        'export {};',
      ];
      expect(typeCheckApp(app, source, moduleResolution)).toBe('');
    });
  }

  it('stops a browser build that imports it, with a line that says why (Vite and esbuild)', async () => {
    writeFileSync(join(app, 'page.js'), "import { createVoiceProxy } from '@voice-browser/server';\nconsole.log(createVoiceProxy);\n");
    writeFileSync(join(app, 'index.html'), '<script type="module" src="./page.js"></script>\n');
    const vite = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], { cwd: app, encoding: 'utf8' });
    expect(vite.status).not.toBe(0);
    expect(vite.stdout + vite.stderr).toContain(BROWSER_REFUSAL);

    const { build } = await import('esbuild');
    const esbuild = await build({ entryPoints: [join(app, 'page.js')], bundle: true, platform: 'browser', write: false, logLevel: 'silent' }).then(
      () => 'built',
      (error: { errors: Array<{ text: string }> }) => error.errors.map((e) => e.text).join('\n'),
    );
    expect(esbuild).toContain(BROWSER_REFUSAL);
  });
});
