import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The type declarations the library ships (tsconfig.lib.json, as scripts/build-lib.ts emits them): the public
 * surface only. The test seams (a fake clock, a fake SIP link) are `@internal` and stripped.
 */

let outDir: string;
beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'voice-browser-types-'));
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.lib.json', '--outDir', outDir], { stdio: 'pipe' });
}, 120_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

// The configuration lays its output out as the repository is (lib beside contract); the build moves lib's up.
const declarations = (file: string) => readFileSync(join(outDir, 'lib', file), 'utf8');

describe('the published declarations', () => {
  it('give createVoiceBrowser the options of spec 4.9 and nothing of the test seams', () => {
    const helper = declarations('voice-browser.d.ts');
    expect(helper).toContain('export declare function createVoiceBrowser(options: VoiceBrowserOptions): VoiceBrowser;');
    for (const seam of ['VoiceBrowserInternals', 'HelperInternals', 'createVoiceBrowserWith', 'openSipLink', 'Clock']) expect(helper).not.toContain(seam);
  });

  it('name every export of the entry point, none of them internal', () => {
    const index = declarations('index.d.ts');
    expect(index).toContain('createVoiceBrowser');
    expect(index).not.toContain('Internals');
  });
});
