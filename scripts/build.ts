import { BUILD_STEPS, buildChanged } from './build-changed.js';

/**
 * `npm run build`: every step whose inputs changed since it last built, one line a step.
 * `npm run build -- --force` builds them all anyway; `npm run build -- build:demo` builds only the steps named.
 */

const STEPS = BUILD_STEPS.map(({ script }) => script);
const args = process.argv.slice(2);
const named = args.filter((arg) => arg !== '--force');
const unknown = named.filter((arg) => !STEPS.includes(arg));
if (unknown.length > 0) {
  console.error(`build: no step or flag ${unknown.join(', ')}; the steps are ${STEPS.join(', ')}, the flag --force`);
  process.exit(1);
}
try {
  await buildChanged(named.length > 0 ? named : STEPS, { force: args.includes('--force') });
} catch (error) {
  console.error(`build: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
