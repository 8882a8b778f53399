import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { digestOf, isUpToDate, writeStamp, type BuildStep } from './up-to-date.js';

/**
 * The repository's build steps and what each reads, and the runner that builds only those whose inputs changed
 * (the up-to-date check says how that is known). A fresh clone has no outputs, so everything builds there.
 */

/** What every step reads besides its own sources: the installed versions and the TypeScript settings. */
const SHARED = ['package.json', 'package-lock.json', 'patches', 'tsconfig.json', 'scripts/build-changed.ts'];

/** The library's sources and its build (build-lib.ts and the plugins and minifier it runs). */
const LIB = ['lib', 'contract', 'scripts/build-lib.ts', 'scripts/lib-chunks.ts', 'scripts/minify.ts', 'scripts/sip-trim.ts', 'tsconfig.lib.json', 'tsconfig.testing.json'];

/** Every build step, in the order `npm run build` runs them. */
export const BUILD_STEPS: readonly BuildStep[] = [
  { script: 'build:lib', inputs: [...SHARED, ...LIB], outDir: 'lib/dist' },
  { script: 'build:server', inputs: [...SHARED, 'server-proxy', 'contract'], outDir: 'server-proxy/dist' },
  { script: 'build:simulator', inputs: [...SHARED, 'simulator', 'contract'], outDir: 'simulator/dist' },
  // The demo bundles the library as built (lib/dist), so it reads what the library's step reads.
  { script: 'build:demo', inputs: [...SHARED, ...LIB, 'demo', 'vite.config.ts'], outDir: 'dist/demo' },
];

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** How {@link buildChanged} runs. */
export interface BuildOptions {
  /** Build every step named, up to date or not. */
  force?: boolean;
  /** Where each step's line goes (one a step: built, with its time, or up to date). */
  log?: (line: string) => void;
}

/**
 * Builds each step of `scripts` (names from {@link BUILD_STEPS}, in that order) whose outputs are not up to
 * date, by its npm script, and says one line a step. Rejects with one line when a step fails; the step's own
 * output, above it, says why.
 */
export async function buildChanged(scripts: readonly string[], options: BuildOptions = {}): Promise<void> {
  const log = options.log ?? console.log;
  const width = Math.max(...scripts.map((script) => script.length));
  for (const step of BUILD_STEPS.filter(({ script }) => scripts.includes(script))) {
    const name = step.script.padEnd(width);
    if (!options.force && isUpToDate(ROOT, step)) {
      log(`${name}  up to date`);
      continue;
    }
    const inputs = digestOf(ROOT, step.inputs);
    const started = performance.now();
    await runScript(step.script);
    writeStamp(ROOT, step, inputs);
    log(`${name}  built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

/** Runs `npm run <script>` without npm's banner; its output is the tool's own (a compiler's errors, say). */
async function runScript(script: string): Promise<void> {
  const child = spawn('npm', ['run', '--silent', script], { cwd: ROOT, stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${script} failed (exit ${code}); its output is above`);
}
