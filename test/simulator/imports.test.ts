import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles, staticClosure } from '../support/source-imports.js';

/**
 * The simulator is its own system: it imports nothing of the proxy nor of the page
 * library; what it shares with them (the states it sets, the records it answers) it takes from contract/.
 */

const SIMULATOR = sourceFiles('simulator');

describe('simulator/', () => {
  it('imports nothing of server-proxy/, statically or not', () => {
    expect(SIMULATOR.flatMap(importsOf).filter((edge) => edge.to.startsWith('server-proxy/'))).toEqual([]);
  });

  it('loads of ours only itself and the contract, statically or not', () => {
    expect(SIMULATOR.flatMap(importsOf).filter((edge) => edge.to.endsWith('.ts') && !/^(simulator|contract)\//.test(edge.to))).toEqual([]);
    expect([...staticClosure(SIMULATOR)].filter((file) => file.endsWith('.ts') && !/^(simulator|contract)\//.test(file))).toEqual([]);
  });
});
