import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/source-imports.js';

/**
 * lib/'s layers (README, "Architecture"; STYLE: layers point one way): the face over the operations, the
 * operations over one runtime, the runtime over pure machines and the edges.
 */

const LIB = sourceFiles('lib');
const importersOf = (target: string) => LIB.filter((file) => importsOf(file).some((edge) => edge.to === target || edge.to.startsWith(`${target}/`)));

describe('lib/', () => {
  it('has one owner of the status: only runtime.ts holds the status store', () => {
    expect(importersOf('lib/status-store.ts')).toEqual(['lib/runtime.ts']);
  });

  it('keeps its three machines pure: they import no other file of the helper but the shapes', () => {
    for (const machine of ['lib/call-machine.ts', 'lib/connection-machine.ts', 'lib/media-machine.ts']) {
      expect(importsOf(machine).map((edge) => edge.to)).toEqual(['lib/types.ts']);
    }
    // The call machine's half of the attempts, which comes with the SIP chunk, takes the rest of it and the shapes.
    expect(importsOf('lib/call-attempts.ts').map((edge) => edge.to).sort()).toEqual(['lib/call-machine.ts', 'lib/types.ts']);
  });

  it('loads SIP.js only in its SIP layer, and that layer only on connect() (a dynamic import)', () => {
    expect(importersOf('sip.js')).toEqual(['lib/sip-adapter.ts', 'lib/sip-call.ts', 'lib/sip-digest.ts', 'lib/sip-flow.ts', 'lib/sip-offer-answer.ts', 'lib/sip-registration.ts', 'lib/sip-reliable-ringing.ts', 'lib/sip-session.ts']);
    const toAdapter = LIB.flatMap(importsOf).filter((edge) => edge.to === 'lib/sip-adapter.ts');
    expect(toAdapter.filter((edge) => edge.from !== 'lib/sip-adapter.ts' && !edge.dynamic && edge.from !== 'lib/sip-session.ts')).toEqual([]);
    expect(toAdapter.some((edge) => edge.from === 'lib/voice-browser.ts' && edge.dynamic)).toBe(true);
  });

  it('lets the operations meet only in the runtime: neither control file imports the other', () => {
    expect(importsOf('lib/call-control.ts').map((edge) => edge.to)).not.toContain('lib/connection-control.ts');
    expect(importsOf('lib/connection-control.ts').map((edge) => edge.to)).not.toContain('lib/call-control.ts');
    for (const operations of ['lib/call-control.ts', 'lib/connection-control.ts']) expect(importsOf(operations).map((edge) => edge.to)).toContain('lib/runtime.ts');
  });
});
