import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestOf, filesUnder, isUpToDate, writeStamp, type BuildStep } from '../../scripts/up-to-date.js';

/** The check that lets `npm start` skip a build step (scripts/up-to-date.ts), on a throwaway tree. */

let root = '';
const step: BuildStep = { script: 'build:thing', inputs: ['src', 'thing.config.ts', 'package-lock.json'], outDir: 'out' };

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** What a build does: empties its folder, writes its outputs, then the runner stamps it with the digest taken before. */
function build(): void {
  const inputs = digestOf(root, step.inputs);
  rmSync(join(root, 'out'), { recursive: true, force: true });
  write('out/thing.js', 'built');
  writeStamp(root, step, inputs);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'up-to-date-'));
  write('src/a.ts', 'a');
  write('src/deep/b.ts', 'b');
  write('thing.config.ts', 'config');
  write('package-lock.json', '{}');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('isUpToDate', () => {
  it('is false before the first build, and true right after it', () => {
    expect(isUpToDate(root, step)).toBe(false);
    build();
    expect(isUpToDate(root, step)).toBe(true);
  });

  it('is false once a source, a configuration or the lock file changes', () => {
    for (const [path, text] of [['src/deep/b.ts', 'b2'], ['thing.config.ts', 'config2'], ['package-lock.json', '{"v":2}']] as const) {
      build();
      write(path, text);
      expect(isUpToDate(root, step), path).toBe(false);
    }
  });

  it('is false once a source is added, deleted or renamed', () => {
    build();
    write('src/c.ts', 'c');
    expect(isUpToDate(root, step)).toBe(false);
    build();
    unlinkSync(join(root, 'src/c.ts'));
    expect(isUpToDate(root, step)).toBe(false);
    build();
    rmSync(join(root, 'src/a.ts'));
    write('src/a2.ts', 'a');
    expect(isUpToDate(root, step)).toBe(false);
  });

  it('is false once an output is changed or deleted, or the stamp is unreadable', () => {
    build();
    write('out/thing.js', 'edited');
    expect(isUpToDate(root, step)).toBe(false);
    build();
    unlinkSync(join(root, 'out/thing.js'));
    expect(isUpToDate(root, step)).toBe(false);
    build();
    write('out/.build-stamp', 'not json');
    expect(isUpToDate(root, step)).toBe(false);
  });

  it('is false when the outputs were built from other inputs than the stamp says (a source edited during the build)', () => {
    const before = digestOf(root, step.inputs);
    write('src/a.ts', 'edited while building');
    write('out/thing.js', 'built');
    writeStamp(root, step, before);
    expect(isUpToDate(root, step)).toBe(false);
  });

  it('stays true when only prose, installed packages or another step’s outputs change', () => {
    build();
    write('src/README.md', 'words');
    write('src/node_modules/dep/index.js', 'dep');
    write('src/dist/x.js', 'x');
    write('elsewhere.ts', 'not an input');
    expect(isUpToDate(root, step)).toBe(true);
  });
});

describe('digestOf', () => {
  it('tells an absent input from an empty one and from one that appears later', () => {
    const absent = digestOf(root, ['missing.ts']);
    write('missing.ts', '');
    expect(digestOf(root, ['missing.ts'])).not.toBe(absent);
  });

  it('does not depend on the order the inputs are listed in', () => {
    expect(digestOf(root, ['thing.config.ts', 'src'])).toBe(digestOf(root, ['src', 'thing.config.ts']));
  });

  it('tells a moved file from the same bytes in place', () => {
    const before = digestOf(root, ['src']);
    rmSync(join(root, 'src/deep/b.ts'));
    write('src/b.ts', 'b');
    expect(digestOf(root, ['src'])).not.toBe(before);
  });
});

describe('filesUnder', () => {
  it('lists a folder’s files sorted, relative to the root, without installed packages, outputs or prose', () => {
    write('src/node_modules/x.js', '');
    write('src/dist/y.js', '');
    write('src/NOTES.md', '');
    expect(filesUnder(root, 'src')).toEqual(['src/a.ts', 'src/deep/b.ts']);
    expect(filesUnder(root, 'thing.config.ts')).toEqual(['thing.config.ts']);
    expect(filesUnder(root, 'nothing-here')).toEqual([]);
  });
});
