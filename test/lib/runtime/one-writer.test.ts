// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as linkParts from '../../../lib/connect-parts.js';
import { FakeBackend } from '../../../lib/testing/fake-backend.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { FakeSip } from '../../../lib/testing/fake-sip.js';
import { createVoiceBrowserWith } from '../../../lib/voice-browser.js';
import { importsOf, sourceFiles } from '../../support/source-imports.js';
import { readFileSync } from 'node:fs';

/**
 * The status has one writer (runtime.ts, `commit`), which refuses a move of the connection or the audio that the
 * exported lists lack, and says so loudly: a test that makes one fails.
 */

afterEach(() => vi.unstubAllGlobals());

describe('the one writer of the status', () => {
  it('is the runtime alone: no other file holds the store or writes a status', () => {
    const writers = sourceFiles('lib').filter((file) => /\bstore\.commit\(/.test(readFileSync(file, 'utf8')));
    expect(writers).toEqual(['lib/runtime/runtime.ts']);
    expect(readFileSync('lib/runtime/runtime.ts', 'utf8').match(/\bstore\.commit\(/g)).toHaveLength(1);
    expect(sourceFiles('lib').filter((file) => importsOf(file).some((edge) => edge.to === 'lib/runtime/status-store.ts'))).toEqual(['lib/runtime/runtime.ts']);
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
