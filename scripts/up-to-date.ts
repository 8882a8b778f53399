import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether a build step's outputs are the ones its inputs make: a stamp file in the step's output folder holds a
 * digest of every input file and of every output file as the step left them. The step is up to date while both
 * still match, so an edited source, a new or deleted file, another lock file, an output deleted or changed by
 * hand, or a step run by itself (every step empties its folder first, stamp included) each make it build again.
 * Contents are hashed, not times, because a checkout or a copy changes times and leaves contents alone.
 */

/** A build step: an npm script, what it reads and the one folder it writes. Paths are relative to the root. */
export interface BuildStep {
  /** The step's name as printed, e.g. `build:lib`: the npm script that builds it. */
  script: string;
  /** The files and folders it reads: its sources, configurations, the lock file and its own build scripts. */
  inputs: readonly string[];
  /** The folder it writes, and empties first. */
  outDir: string;
}

/** Folders no step reads from an input folder: installed packages and other steps' outputs. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist']);

/** Files no step reads: prose. */
const SKIPPED_FILES = /\.md$/;

/** The stamp's name in a step's output folder. */
export const STAMP_FILE = '.build-stamp';

/** Every file under `path` (itself if it is a file), relative to `root`, sorted, skipping what no step reads. */
export function filesUnder(root: string, path: string, skip: (name: string, folder: boolean) => boolean = skipInput): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  const files: string[] = [];
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    if (skip(entry.name, entry.isDirectory())) continue;
    const child = `${path}/${entry.name}`;
    if (entry.isDirectory()) files.push(...filesUnder(root, child, skip));
    else if (entry.isFile()) files.push(child);
  }
  return files.sort();
}

function skipInput(name: string, folder: boolean): boolean {
  return folder ? SKIPPED_FOLDERS.has(name) || name.startsWith('.') : SKIPPED_FILES.test(name);
}

/**
 * A digest of the files under `paths` (names and contents). A path that does not exist counts as absent, so
 * creating it later changes the digest.
 */
export function digestOf(root: string, paths: readonly string[], skip?: (name: string, folder: boolean) => boolean): string {
  const hash = createHash('sha256');
  for (const path of [...paths].sort()) {
    const files = filesUnder(root, path, skip);
    if (files.length === 0) hash.update(`absent ${path}\0`);
    for (const file of files) {
      const content = readFileSync(join(root, file));
      hash.update(`${file}\0${content.length}\0`).update(content);
    }
  }
  return hash.digest('hex');
}

/** The digest of a step's outputs: every file in its folder but the stamp. */
function outputsDigest(root: string, step: BuildStep): string {
  return digestOf(root, [step.outDir], (name, folder) => !folder && name === STAMP_FILE);
}

/** What a stamp holds. */
interface Stamp {
  inputs: string;
  outputs: string;
}

/** Whether `step`'s outputs were built from exactly its current inputs and are as the build left them. */
export function isUpToDate(root: string, step: BuildStep): boolean {
  const path = join(root, step.outDir, STAMP_FILE);
  if (!existsSync(path)) return false;
  let stamp: Partial<Stamp>;
  try {
    stamp = JSON.parse(readFileSync(path, 'utf8')) as Partial<Stamp>;
  } catch {
    return false;
  }
  return stamp.inputs === digestOf(root, step.inputs) && stamp.outputs === outputsDigest(root, step);
}

/**
 * Records that `step` has just built from `inputs` (the digest of its inputs taken before it ran, so a source
 * edited during the build makes it build again next time).
 */
export function writeStamp(root: string, step: BuildStep, inputs: string): void {
  const stamp: Stamp = { inputs, outputs: outputsDigest(root, step) };
  writeFileSync(join(root, step.outDir, STAMP_FILE), `${JSON.stringify(stamp)}\n`);
}
