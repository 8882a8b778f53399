import { execFileSync, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';

/** What the package tests share: type-checking an app as its own `tsc` would, and reading a started simulator's URL. */

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * Packs the three packages into `destination` as `npm run pack` does, from what the build already made (npm test
 * builds first; packing with their scripts would only build again).
 */
export function packPackages(destination: string): void {
  execFileSync('npm', ['pack', '-w', 'lib', '-w', 'server-proxy', '-w', 'simulator', '--ignore-scripts', '--pack-destination', destination, '--loglevel=error'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

export const MODULE_RESOLUTIONS = ['bundler', 'nodenext'] as const;

/**
 * Writes `source` as the app's `app.ts` and type-checks it with this repository's TypeScript: strict, without
 * `skipLibCheck`, so every declaration file the app reaches is checked too. Returns what tsc printed (its
 * errors), empty when it passed.
 */
export function typeCheckApp(app: string, source: string[], moduleResolution: (typeof MODULE_RESOLUTIONS)[number], types: string[] = []): string {
  writeFileSync(join(app, 'app.ts'), source.join('\n'));
  const compilerOptions = { noEmit: true, strict: true, skipLibCheck: false, types, lib: ['es2022', 'dom'], target: 'es2022', module: moduleResolution === 'bundler' ? 'esnext' : 'nodenext', moduleResolution };
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.ts'] }));
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], { cwd: app, encoding: 'utf8' });
  return tsc.status === 0 ? tsc.stdout : tsc.stdout || `tsc exited with ${tsc.status}: ${tsc.stderr}`;
}

/** A simulator's REST at `base` answers a read made with `key`, and refuses one without a key. */
export async function expectRestGuardedBy(base: string, key: string): Promise<void> {
  const read = (headers: Record<string, string>) => fetch(`${base}/v1/voice/browser-sessions?externalSubject=someone`, { headers });
  expect((await read({ 'X-Api-Key': key })).status).toBe(200);
  expect((await read({})).status).toBe(401);
}

/** The `VOICE_BASE_URL` a starting simulator prints, once it printed its key too; rejects if it exits first. */
export function simulatorBaseUrl(child: ChildProcessByStdio<null, Readable, Readable | null>): Promise<string> {
  return new Promise((resolveBase, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`the simulator exited with ${code}: ${out}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const base = /VOICE_BASE_URL=(\S+)/.exec(out)?.[1];
      if (base && out.includes('API key:')) resolveBase(base);
    });
  });
}
