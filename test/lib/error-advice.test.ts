import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorAdvice } from '../../lib/error-advice.js';
import { VOICE_ERROR_CODES } from '../../lib/core/errors.js';

/** The codes the helper gives (lib/core/errors.ts), the advice the page shows for each, and the README that lists them. */

describe('errorAdvice()', () => {
  it('tells what to do next for every code the helper gives, each in its own words', () => {
    const fallback = errorAdvice('never_heard_of_it');
    for (const code of VOICE_ERROR_CODES) expect(errorAdvice(code), code).not.toBe(fallback);
    expect(new Set(VOICE_ERROR_CODES.map(errorAdvice)).size).toBe(VOICE_ERROR_CODES.length);
    expect(errorAdvice('call_outcome_unknown')).toContain('same attempt');
    expect(errorAdvice('audio_playback_blocked')).toContain('Resume audio');
  });

  it("advises on the service's common codes, any compliance block included", () => {
    expect(errorAdvice('compliance_dnc')).toContain('blocked for compliance');
    expect(errorAdvice('rate_limited')).toContain('Wait');
  });
});

describe("README's error table", () => {
  it('has a row for every code the helper gives', () => {
    const readme = readFileSync('README.md', 'utf8');
    const table = readme.slice(readme.indexOf('| code | when | what the page does |'));
    const rows = table.slice(0, table.indexOf('\n\n')).split('\n');
    for (const code of VOICE_ERROR_CODES) expect(rows.some((row) => row.startsWith('|') && row.split('|')[1]?.includes(`\`${code}\``)), code).toBe(true);
  });
});
