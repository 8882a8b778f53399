import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The integrators' documents point only at files the repository has: every relative Markdown link in the
 * READMEs and docs/ (the generated API reference included) resolves, and every `#anchor` into the README names
 * one of its headings.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  'lib/README.md',
  'server-proxy/README.md',
  'simulator/README.md',
  ...readdirSync(join(ROOT, 'examples')).map((example) => `examples/${example}/README.md`),
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** Links outside fenced code: `[text](target)`, without the external ones. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? '').filter((target) => !/^[a-z]+:/.test(target));
}

describe('the documents', () => {
  it('are all found', () => {
    for (const doc of DOCS) expect(existsSync(join(ROOT, doc)), doc).toBe(true);
    expect(DOCS.length).toBeGreaterThan(60);
  });

  it('link only to files that exist', () => {
    const broken = DOCS.flatMap((doc) =>
      relativeLinks(readFileSync(join(ROOT, doc), 'utf8'))
        .filter((target) => !target.startsWith('#'))
        .map((target) => decodeURIComponent(target.split('#')[0] ?? ''))
        .filter((path) => !existsSync(join(dirname(join(ROOT, doc)), path)))
        .map((path) => `${doc} -> ${path}`),
    );
    expect(broken).toEqual([]);
  });

  it("link to the README's own headings by anchors that exist", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const anchors = new Set([...readme.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1] ?? '')));
    const targets = DOCS.flatMap((doc) =>
      relativeLinks(readFileSync(join(ROOT, doc), 'utf8'))
        .filter((target) => target.startsWith('#') ? doc === 'README.md' : target.includes('README.md#') && resolve(dirname(join(ROOT, doc)), target.split('#')[0] ?? '') === join(ROOT, 'README.md'))
        .map((target) => target.slice(target.indexOf('#') + 1)),
    );
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });
});
