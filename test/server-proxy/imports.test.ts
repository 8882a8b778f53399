import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startApp } from '../../scripts/start-app.js';
import { importsOf, sourceFiles, staticClosure } from '../support/source-imports.js';

/**
 * The proxy imports nothing of the simulator: a deployment with VOICE_BASE_URL
 * never loads werift or ws. `npm start` reaches the embedded simulator through one dynamic import.
 */

const PROXY = sourceFiles('server-proxy');
/** The demo's own server, which `npm start` runs around the proxy; the package never ships it. */
const DEMO_SERVER = sourceFiles('demo/server');

describe('server-proxy/', () => {
  it('imports nothing of simulator/ nor of the demo, statically or not', () => {
    expect(PROXY.length).toBeGreaterThan(40);
    expect(PROXY.flatMap(importsOf).filter((edge) => /^(simulator|demo)\//.test(edge.to))).toEqual([]);
  });

  it('lets the demo server reach simulator/ only through the one dynamic import of npm start', () => {
    const intoSimulator = DEMO_SERVER.flatMap(importsOf).filter((edge) => edge.to.startsWith('simulator/'));
    expect(intoSimulator).toEqual([{ from: 'demo/server/main.ts', to: 'simulator/embedded.ts', dynamic: true }]);
  });

  it('loads no file of simulator/, nor werift or ws, from any of its files, npm start included', () => {
    const loaded = [...staticClosure([...PROXY, ...DEMO_SERVER])];
    expect(loaded.filter((file) => file.startsWith('simulator/') || /^(werift|ws)(\/|$)/.test(file))).toEqual([]);
    // What it does load of ours: itself, the demo's server and the contract, nothing else.
    expect(loaded.filter((file) => file.endsWith('.ts') && !/^(server-proxy|demo\/server|contract)\//.test(file))).toEqual([]);
  });
});

/**
 * Logs every module the process loads into the file `MODULE_LOG`: each ES module as it is resolved, and every
 * CommonJS one (what a package `require`s, which Node 20's resolve hook does not see) as the process exits.
 */
const HOOK = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.MODULE_LOG, resolved.url + '\\n');
  return resolved;
}`;
const MODULE_LOG_PRELOAD = `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});
process.on('exit', () => appendFileSync(process.env.MODULE_LOG, Object.keys(createRequire(process.cwd() + '/').cache).join('\\n')));`;

describe('a deployment (npm start with VOICE_BASE_URL)', () => {
  it('runs without loading werift, ws or any file of simulator/', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'deployment-modules-'));
    const log = join(folder, 'modules.txt');
    // A stand-in service on loopback: start-up reads it once  before it listens.
    const service = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"session":null,"call":null}'));
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const app = await startApp({
        VOICE_BASE_URL: `http://127.0.0.1:${(service.address() as AddressInfo).port}/api`,
        VOICE_API_KEY: 'vk_live_0123456789',
        SESSION_SECRET: 's'.repeat(32),
        MODULE_LOG: log,
        NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(MODULE_LOG_PRELOAD)}`,
      });
      expect(app.sim).toBe('');
      await app.stop();
      const modules = readFileSync(log, 'utf8').split('\n');
      // The log saw the proxy and its packages, so an empty match below is not an empty log.
      expect(modules.some((module) => module.endsWith('/server-proxy/setup/proxy.ts'))).toBe(true);
      expect(modules.some((module) => module.includes('/node_modules/undici/'))).toBe(true);
      expect(modules.filter((module) => /\/node_modules\/(werift|ws)\/|\/simulator\//.test(module))).toEqual([]);
    } finally {
      service.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
