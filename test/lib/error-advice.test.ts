import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorAdvice } from '../../lib/error-advice.js';
import { VOICE_ERROR_CODES } from '../../lib/core/errors.js';

/** The codes the helper gives, the advice the page shows for each, and the errors page that lists them. */

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

describe("docs/errors.md's table of the helper's codes", () => {
  it('has a row for every code the helper gives', () => {
    const page = readFileSync('docs/errors.md', 'utf8');
    expect(page).toContain('| code | when | what the page does |');
    const table = page.slice(page.indexOf('| code | when | what the page does |'));
    const rows = table.slice(0, table.indexOf('\n\n')).split('\n');
    for (const code of VOICE_ERROR_CODES) expect(rows.some((row) => row.startsWith('|') && row.split('|')[1]?.includes(`\`${code}\``)), code).toBe(true);
  });
});
