import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The integrators' documents point only at files the repository has: every relative Markdown link in the
 * READMEs and docs/ (the generated API reference included) resolves, and every `#anchor` into a Markdown file
 * names one of its headings.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = [
  'README.md',
  'lib/README.md',
  'server-proxy/README.md',
  'simulator/README.md',
  'demo/README.md',
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

/** A document's anchors, one per heading outside fenced code; a repeated one gets `-1`, `-2`, ... as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#+ (.+)$/gm)) {
    const anchor = anchorOf(match[1] ?? '');
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return anchors;
}

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

  it('link to headings that exist, in their own file or another', () => {
    const targets = DOCS.flatMap((doc) =>
      relativeLinks(readFileSync(join(ROOT, doc), 'utf8'))
        .filter((target) => target.includes('#'))
        .map((target) => {
          const [path = '', anchor = ''] = target.split('#');
          return { from: doc, file: path === '' ? join(ROOT, doc) : resolve(dirname(join(ROOT, doc)), decodeURIComponent(path)), anchor };
        })
        .filter((link) => link.file.endsWith('.md')),
    );
    expect(targets.filter((link) => link.file === join(ROOT, 'README.md')).length).toBeGreaterThan(0);
    const missing = targets
      .filter((link) => !existsSync(link.file) || !anchorsOf(readFileSync(link.file, 'utf8')).has(link.anchor))
      .map((link) => `${link.from} -> ${link.file.slice(ROOT.length + 1)}#${link.anchor}`);
    expect(missing).toEqual([]);
  });
});
