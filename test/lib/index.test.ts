// Node environment on purpose: no `window`, no `document`, as in server-side rendering.
import { afterEach, describe, expect, it, vi } from 'vitest';

const BROWSER_GLOBALS = ['window', 'document', 'navigator', 'location', 'self'] as const;

describe('lib/index.ts', () => {
  const touched: string[] = [];
  // Node 21+ has its own `navigator`: put back whatever was there.
  const original = new Map(BROWSER_GLOBALS.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));

  function restoreGlobals(): void {
    for (const [name, descriptor] of original) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else Reflect.deleteProperty(globalThis, name);
    }
  }

  afterEach(() => {
    restoreGlobals();
    touched.length = 0;
  });

  it('imports without touching window, document or any other browser global', async () => {
    expect(typeof globalThis.window).toBe('undefined');
    expect(typeof globalThis.document).toBe('undefined');
    // Trip-wires: any read of a browser global while the module evaluates is recorded (even `typeof window`).
    for (const name of BROWSER_GLOBALS) {
      Object.defineProperty(globalThis, name, {
        configurable: true,
        get() {
          touched.push(name);
          return undefined;
        },
      });
    }
    vi.resetModules();
    const lib = await import('../../lib/index.js');
    restoreGlobals();

    expect(touched).toEqual([]);
    expect(Object.keys(lib).sort()).toEqual([
      'AUDIO_STATES',
      'AUDIO_TRANSITIONS',
      'BROWSER_CALL_STATES',
      'BROWSER_CALL_TRANSITIONS',
      'CONNECTION_STATES',
      'CONNECTION_TRANSITIONS',
      'RENEWABLE_CONNECTIONS',
      'TERMINAL_CALL_STATES',
      'VOICE_ERROR_CODES',
      'VoiceBrowserError',
      'canAnswerNext',
      'canCall',
      'canConnect',
      'canRenew',
      'canRetryCall',
      'canSendDtmf',
      'createFetchBackend',
      'createVoiceBrowser',
      'isVoiceBrowserError',
      'listAudioDevices',
    ]);
  });

  it('creates a helper and a fetch backend without a browser, touching nothing until connect()', async () => {
    const { createFetchBackend, createVoiceBrowser } = await import('../../lib/index.js');
    const statuses: unknown[] = [];
    const voice = createVoiceBrowser({ backend: createFetchBackend(), onStatus: (status) => statuses.push(status) });
    expect(voice.status()).toMatchObject({ connection: 'disconnected', busy: false, call: null });
    expect(statuses).toEqual([]);
  });
});
