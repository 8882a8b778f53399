import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRestGuardedBy, MODULE_RESOLUTIONS, simulatorBaseUrl, typeCheckApp } from './support.js';

/**
 * `@voice-browser/simulator` as packed: compiled JavaScript that runs
 * on plain `node`, its bin `voice-browser-simulator` included.
 *
 * @remarks
 * The tarball is unpacked beside a `node_modules` that links to this repository's, so its dependencies
 * resolve without the network (an offline `npm install` of werift's tree needs the registry's metadata).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const KEY = 'vsk_PackageTestKey000000000000000000';
/** The browsers the Playwright run launches (scripts/ensure-browsers.ts installs them). */
const CHROMIUM_PATH = '/usr/bin/chromium';
const FIREFOX_PATH = '/usr/bin/firefox-esr';

let work: string;
let unpacked: string;
/**
 * An app beside the package: its node_modules holds the unpacked package and, from this repository, only what an
 * app would depend on itself (`@playwright/test`, type packages), not Playwright's own dependencies.
 */
let consumer: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'voice-browser-simulator-package-'));
  // The build already ran (npm test builds first).
  execFileSync('npm', ['pack', '-w', 'simulator', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'], { cwd: ROOT });
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz')) ?? '';
  unpacked = join(work, 'app', 'simulator');
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['-xzf', join(work, tarball), '-C', unpacked, '--strip-components=1']);
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'app', 'node_modules'), 'dir');
  consumer = join(work, 'consumer');
  mkdirSync(join(consumer, 'node_modules', '@voice-browser'), { recursive: true });
  symlinkSync(unpacked, join(consumer, 'node_modules', '@voice-browser', 'simulator'), 'dir');
  for (const name of ['@playwright', '@types']) symlinkSync(join(ROOT, 'node_modules', name), join(consumer, 'node_modules', name), 'dir');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'an-app', version: '1.0.0', private: true, type: 'module' }));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the @voice-browser/simulator package', () => {
  it('ships compiled JavaScript, no TypeScript source', () => {
    const files = readdirSync(unpacked, { recursive: true, encoding: 'utf8' });
    expect(files).toContain(join('dist', 'simulator', 'main.js'));
    expect(files).toContain(join('dist', 'contract', 'http-error.js'));
    expect(files).toContain(join('dist', 'simulator', 'playwright.js'));
    // Only the public declarations: the rest would reach werift's, which fail an app's tsc without skipLibCheck.
    const declarations = files.filter((file) => file.endsWith('.d.ts')).map((file) => file.replace(/^dist\/simulator\//, '')).sort();
    expect(declarations).toEqual(['browsers/chromium-flags.d.ts', 'browsers/firefox-prefs.d.ts', 'dist/contract/browser-call.d.ts', 'dist/contract/queue-call.d.ts', 'http/control-client.d.ts', 'http/control-edge-shapes.d.ts', 'index.d.ts', 'media/codec-profile.d.ts', 'media/impairment.d.ts', 'media/media-address-mode.d.ts', 'playwright.d.ts', 'turn/network-profile.d.ts']);
    expect(files.filter((file) => (file.endsWith('.ts') && !file.endsWith('.d.ts')) || file.endsWith('.map'))).toEqual([]);
  });

  it('keeps Playwright out of its main entry: only the playwright module imports it, and by its public name', () => {
    const dist = join(unpacked, 'dist');
    const javascript = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'));
    // Statements only: a TSDoc example in the compiled JavaScript may show the import.
    const importers = javascript.filter((file) => /^(import|export)\b[^;]*\bfrom ['"](@playwright\/test|playwright)['"/]/m.test(readFileSync(join(dist, file), 'utf8')));
    expect(importers).toEqual([join('simulator', 'playwright.js')]);
    // An inferred type would name `playwright/test`, which an app that installs only @playwright/test may not resolve.
    const declaration = readFileSync(join(dist, 'simulator', 'playwright.d.ts'), 'utf8');
    expect(declaration).not.toMatch(/['"]playwright(-core)?(\/[^'"]*)?['"]/);
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    expect(manifest.dependencies).not.toHaveProperty('@playwright/test');
    expect(manifest.peerDependenciesMeta).toEqual({ '@playwright/test': { optional: true } });
    expect(manifest).not.toHaveProperty('private');
  });

  it('starts from its typed entry in plain node, and its control client drives it: a fault, a typed refusal, a reset', () => {
    const script = [
      "import { startSimulator, createSimulatorControl, SimulatorControlError } from '@voice-browser/simulator';",
      'const simulator = await startSimulator();',
      'const control = createSimulatorControl(simulator.url);',
      "const read = () => fetch(`${simulator.baseUrl}/v1/voice/browser-sessions?externalSubject=someone`, { headers: { 'x-api-key': simulator.apiKey } }).then((r) => r.status);",
      "await control.fault({ method: 'GET', path: '/api/v1/voice/browser-sessions', fault: 'error', status: 503, code: 'provider_error' });",
      'const faulted = await read();',
      'const healed = await read();',
      "const refusal = await control.call('bc_nothing').catch((error) => error instanceof SimulatorControlError && `${error.status} ${error.code}`);",
      "await control.fault({ method: 'GET', path: '/api/v1/voice/browser-sessions', fault: 'error', status: 503, code: 'provider_error' });",
      'await control.reset();',
      'const afterReset = await read();',
      'await simulator.close();',
      'console.log(JSON.stringify({ faulted, healed, refusal, afterReset, sip: simulator.sipUrl.startsWith("ws://127.0.0.1:") }));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ faulted: 503, healed: 200, refusal: '404 not_found', afterReset: 200, sip: true });
  });

  for (const moduleResolution of MODULE_RESOLUTIONS) {
    it(`type-checks an app using both entries with tsc, strict and without skipLibCheck (moduleResolution ${moduleResolution})`, () => {
      const source = [
        "import { startSimulator, type Simulator, type SimulatorFault } from '@voice-browser/simulator';",
        "import { test, expect, chromiumArgs, chromiumLaunchOptions, firefoxLaunchOptions, firefoxUserPrefs, createSimulatorControl, SimulatorControlError, type SimulatedCallRecord } from '@voice-browser/simulator/playwright';",
        "const fault: SimulatorFault = { method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'delay', delayMs: 500 };",
        "// @ts-expect-error: a fault the simulator does not have",
        "const unknown: SimulatorFault = { method: 'POST', path: '/api/v1/voice/browser-calls', fault: 'explode' };",
        'const flags: readonly string[] = chromiumArgs;',
        "const prefs: boolean | number | string | undefined = firefoxUserPrefs['media.navigator.permission.fake'];",
        "const firefox: 'moz-firefox' = firefoxLaunchOptions({ executablePath: '/usr/bin/firefox-esr' }).channel;",
        'async function callsOf(simulator: Simulator, sessionId: string): Promise<SimulatedCallRecord[] | number> {',
        '  const control = createSimulatorControl(simulator.url);',
        '  return control.callsOfSession(sessionId).catch((error: unknown) => (error instanceof SimulatorControlError ? error.status : 0));',
        '}',
        'void [unknown, flags, prefs, firefox, callsOf];',
        "test.use({ simulatorOptions: { noAnswerMs: 2000 }, launchOptions: chromiumLaunchOptions({ executablePath: '/usr/bin/chromium' }) });",
        "test('a call', async ({ simulator }) => {",
        '  await simulator.fault(fault);',
        "  const { call, media } = await simulator.call('bc_1');",
        "  expect(call.state).toBe('ended');",
        '  expect(media?.packetsFromBrowser ?? 0).toBeGreaterThan(0);',
        '});',
        'void startSimulator({ port: 0 }).then((simulator) => simulator.close());',
        'export {};',
      ];
      expect(typeCheckApp(consumer, source, moduleResolution, ['node'])).toBe('');
    });
  }

  it('runs a Playwright project whose spec uses its test and simulator fixture, in Chromium with its flags and Firefox with its prefs', () => {
    for (const path of [CHROMIUM_PATH, FIREFOX_PATH]) expect(existsSync(path), `${path} is missing: npx tsx scripts/ensure-browsers.ts`).toBe(true);
    writeFileSync(
      join(consumer, 'playwright.config.ts'),
      [
        "import { defineConfig } from '@playwright/test';",
        "import { chromiumLaunchOptions, firefoxLaunchOptions } from '@voice-browser/simulator/playwright';",
        "export default defineConfig({ testDir: 'e2e', workers: 1, retries: 0, timeout: 30_000, reporter: 'line', projects: [",
        "  { name: 'chromium', use: { browserName: 'chromium', launchOptions: chromiumLaunchOptions() } },",
        "  { name: 'firefox', use: { browserName: 'firefox', launchOptions: firefoxLaunchOptions() } },",
        '] });',
      ].join('\n'),
    );
    mkdirSync(join(consumer, 'e2e'), { recursive: true });
    writeFileSync(
      join(consumer, 'e2e', 'simulator.spec.ts'),
      [
        "import { test, expect } from '@voice-browser/simulator/playwright';",
        `test.use({ simulatorOptions: { apiKey: '${KEY}' } });`,
        "test('the worker simulator takes its key, faults on demand, and the launched browser has a fake microphone', async ({ simulator, page, request, browserName }) => {",
        `  expect(simulator.apiKey).toBe('${KEY}');`,
        "  expect(simulator.baseUrl).toMatch(/^http:\\/\\/127\\.0\\.0\\.1:\\d+\\/api$/);",
        "  const read = async () => (await request.get(`${simulator.baseUrl}/v1/voice/browser-sessions?externalSubject=someone`, { headers: { 'X-Api-Key': simulator.apiKey } })).status();",
        '  expect(await read()).toBe(200);',
        "  await simulator.fault({ method: 'GET', path: '/api/v1/voice/browser-sessions', fault: 'error', status: 503, code: 'provider_error' });",
        '  expect(await read()).toBe(503);',
        "  await simulator.fault({ method: 'GET', path: '/api/v1/voice/browser-sessions', fault: 'error', status: 503, code: 'provider_error' });",
        '  await simulator.reset();',
        '  expect(await read()).toBe(200);',
        '  await page.goto(`${simulator.url}/__sim/faults`);',
        "  await expect(page.locator('body')).toContainText('armed');",
        '  const microphone = await page.evaluate(async () => { const track = (await navigator.mediaDevices.getUserMedia({ audio: true })).getAudioTracks()[0]; return JSON.stringify({ label: track?.label, state: track?.readyState }); });',
        '  // Opened without a prompt; Chromium names its fake device, Firefox gives its fake stream the default name.',
        "  expect(JSON.parse(microphone)).toEqual({ label: browserName === 'chromium' ? expect.stringMatching(/fake/i) : 'Default Audio Device', state: 'live' });",
        '});',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [join(consumer, 'node_modules/@playwright/test/cli.js'), 'test'], {
      cwd: consumer,
      encoding: 'utf8',
      timeout: 150_000,
      // Only what the run needs: no CI, PW_* or E2E_* variables of the caller's shell.
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), CHROMIUM_PATH, FIREFOX_PATH, FORCE_COLOR: '0' },
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('2 passed');
  });

  it('serves the simulator from its bin on plain node: REST with the key, 401 without', async () => {
    const child = spawn(process.execPath, [join(unpacked, 'dist/simulator/main.js'), '--port', '0', '--api-key', KEY], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await expectRestGuardedBy(await simulatorBaseUrl(child), KEY);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
