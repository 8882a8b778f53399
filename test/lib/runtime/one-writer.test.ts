// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as linkParts from '../../../lib/connect-parts.js';
import { FakeBackend } from '../../../lib/testing/fake-backend.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { FakeSip } from '../../../lib/testing/fake-sip.js';
import { createVoiceBrowserWith } from '../../../lib/voice-browser.js';
import { importsOf, sourceFiles } from '../../support/source-imports.js';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/**
 * The status has one writer (runtime.ts, `commit`), which refuses a move of the connection or the audio that the
 * exported lists lack, and says so loudly: a test that makes one fails.
 */

afterEach(() => vi.unstubAllGlobals());

/** The function a node sits in, by name (a declaration's, or the variable or property it is assigned to). */
function enclosing(node: ts.Node, source: ts.SourceFile): string {
  for (let at = node.parent; at; at = at.parent) {
    if (!ts.isFunctionLike(at)) continue;
    const named = at.name?.getText(source) ?? (ts.isVariableDeclaration(at.parent) || ts.isPropertyAssignment(at.parent) ? at.parent.name.getText(source) : undefined);
    if (named) return named;
  }
  return '(top level)';
}

/** Every call in `text` of a function or method named one of `names` (`commit(...)`, `x.commit(...)`), and where it sits. */
function callsIn(file: string, text: string, names: readonly string[]): Array<{ file: string; callee: string; within: string }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ file: string; callee: string; within: string }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const called = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
      if (called && names.includes(called)) found.push({ file, callee: callee.getText(source), within: enclosing(node, source) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const callsOf = (names: readonly string[]) => (file: string) => callsIn(file, readFileSync(file, 'utf8'), names);

/** The names a write around the machines would go by: the old `show` and `fail`, or a patch of the status. */
const BYPASSES = ['show', 'fail', 'setStatus', 'patch'] as const;
/** A follower tab shows the leader's status as it heard it; the testing kit's fakes are no helper. */
const helperFiles = () => sourceFiles('lib').filter((file) => !file.startsWith('lib/testing/') && file !== 'lib/api/tabs/shared-tabs.ts');

describe('the one writer of the status', () => {
  it('is the runtime alone: no other file holds the store or writes a status', () => {
    const writers = sourceFiles('lib').filter((file) => /\bstore\.commit\(/.test(readFileSync(file, 'utf8')));
    expect(writers).toEqual(['lib/runtime/runtime.ts']);
    expect(readFileSync('lib/runtime/runtime.ts', 'utf8').match(/\bstore\.commit\(/g)).toHaveLength(1);
    expect(sourceFiles('lib').filter((file) => importsOf(file).some((edge) => edge.to === 'lib/runtime/status-store.ts'))).toEqual(['lib/runtime/runtime.ts']);
  });

  it('is reached only through dispatch: the one commit is called by the loop alone, and nothing shows a status around the machines', () => {
    expect(sourceFiles('lib').flatMap(callsOf(['commit']))).toEqual([
      { file: 'lib/runtime/runtime.ts', callee: 'store.commit', within: 'commit' },
      { file: 'lib/runtime/runtime.ts', callee: 'commit', within: 'dispatch' },
    ]);
    expect(helperFiles().flatMap(callsOf(BYPASSES))).toEqual([]);
  });

  it('is held by checks that catch a write around the loop (a synthetic bypass)', () => {
    const bypass = `function mute(rt) { rt.show({ muted: true }); }\nconst runtime = { hangup() { commit({ error: null }); } };`;
    expect(callsIn('synthetic.ts', bypass, BYPASSES)).toEqual([{ file: 'synthetic.ts', callee: 'rt.show', within: 'mute' }]);
    expect(callsIn('synthetic.ts', bypass, ['commit'])).toEqual([{ file: 'synthetic.ts', callee: 'commit', within: 'hangup' }]);
  });

  it('refuses a move the exported lists lack, leaving the status as it was, and throws it outside the helper', async () => {
    const thrown: Array<() => void> = [];
    vi.stubGlobal('queueMicrotask', (run: () => void) => thrown.push(run));
    const sip = new FakeSip();
    // A media machine with a bug: it ends audio that never began (none → ended is no arrow of AUDIO_TRANSITIONS).
    const buggy: typeof linkParts.mediaTransition = (state, event) => (event.type === 'audio' ? [{ ...state, audio: 'ended' }, []] : [state, []]);
    const voice = createVoiceBrowserWith(
      { backend: new FakeBackend() },
      { clock: new FakeClock(0), sipParts: { ...linkParts, mediaTransition: buggy, openSipLink: sip.openSipLink }, tabs: null },
    );
    await voice.connect();
    const before = voice.status();
    sip.events.onAudio('playing');
    expect(voice.status()).toBe(before);
    expect(thrown).toHaveLength(1);
    expect(() => thrown[0]?.()).toThrow('voice-browser: audio none > ended');
  });
});
