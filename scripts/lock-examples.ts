import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * `npm run lock:examples`: writes each example's package-lock.json after `npm run pack`, from the tarballs in
 * .packs/ and the registry, without the integrity of our own tarballs.
 *
 * @remarks
 * npm trusts a lockfile's integrity over the file it points at: with it, `npm ci` installs the copy of a
 * `file:` tarball that npm cached the first time, not the one just packed. Without it, npm takes the file.
 */

const ROOT = resolve(import.meta.dirname, '..');

interface Lockfile {
  packages: Record<string, { resolved?: string; integrity?: string }>;
}

// `npm run lock:examples -- vite-ts` locks one; no argument, every example.
const chosen = process.argv.slice(2);
for (const example of readdirSync(join(ROOT, 'examples')).filter((name) => chosen.length === 0 || chosen.includes(name))) {
  const dir = join(ROOT, 'examples', example);
  const path = join(dir, 'package-lock.json');
  // Our tarballs' entries go first: npm would otherwise keep their old dependencies (one added to the
  // server package would be missing), while every registry package keeps the version it is locked at.
  const before = JSON.parse(readFileSync(path, 'utf8')) as Lockfile;
  for (const [name, entry] of Object.entries(before.packages)) if (entry.resolved?.startsWith('file:')) delete before.packages[name];
  writeFileSync(path, `${JSON.stringify(before, null, 2)}\n`);
  execFileSync('npm', ['install', '--package-lock-only', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  const lock = JSON.parse(readFileSync(path, 'utf8')) as Lockfile;
  for (const entry of Object.values(lock.packages)) if (entry.resolved?.startsWith('file:')) delete entry.integrity;
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`examples/${example}/package-lock.json written`);
}
