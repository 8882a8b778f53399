import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles, staticClosure } from '../support/source-imports.js';

/** The simulator is its own system: it imports nothing of the proxy. */

const SIMULATOR = sourceFiles('simulator');

describe('simulator/', () => {
  it('imports nothing of server-proxy/, statically or not', () => {
    expect(SIMULATOR.flatMap(importsOf).filter((edge) => edge.to.startsWith('server-proxy/'))).toEqual([]);
  });

  it("loads of ours only itself, the contract, and the page library's list of call states (lib/core/types.ts)", () => {
    // The states are written once, where the page reads them; lib/core/types.ts imports nothing.
    expect([...staticClosure(SIMULATOR)].filter((file) => file.endsWith('.ts') && !/^(simulator|contract)\//.test(file) && file !== 'lib/core/types.ts')).toEqual([]);
    expect(importsOf('lib/core/types.ts')).toEqual([]);
  });
});
