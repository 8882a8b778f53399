import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/source-imports.js';

/** contract/ is what the proxy and the simulator both hold to, so it imports neither (no cycle). */

describe('contract/', () => {
  it('imports nothing of server-proxy/ or simulator/, only itself and packages', () => {
    const ours = sourceFiles('contract').flatMap(importsOf).filter((edge) => edge.to.endsWith('.ts'));
    expect(ours.filter((edge) => !edge.to.startsWith('contract/'))).toEqual([]);
  });
});
