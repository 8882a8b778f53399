// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../../lib/testing/fake-backend.js';
import { createVoiceBrowserWith } from '../../lib/voice-browser.js';
import { FakeSipSockets } from '../support/fake-sip-socket.js';

/**
 * Which chunk serves a method, with the real dynamic imports (no parts handed in): disconnect() and recover() on a
 * helper that never connected take the cleanup's own chunk, without SIP.js; after connect() the SIP chunk holds
 * them, so disconnect() needs no download, and a page gone offline can still end its session.
 */

const served = vi.hoisted((): string[] => []);
vi.mock('../../lib/connection-work.js', async (original) => {
  const { parts } = await original<typeof import('../../lib/connection-work.js')>();
  return {
    parts: {
      recover: (...args: Parameters<typeof parts.recover>) => (served.push('recover'), parts.recover(...args)),
      disconnect: (...args: Parameters<typeof parts.disconnect>) => (served.push('disconnect'), parts.disconnect(...args)),
    },
  };
});

describe('the chunk that serves a method', () => {
  it('is the cleanup chunk for recover() and disconnect() before any connect(), and the SIP chunk after', async () => {
    vi.stubGlobal('WebSocket', new FakeSipSockets().WebSocket);
    try {
      const fresh = createVoiceBrowserWith({ backend: new FakeBackend() }, { tabs: null });
      await fresh.recover();
      await fresh.disconnect();
      expect(served).toEqual(['recover']);

      const voice = createVoiceBrowserWith({ backend: new FakeBackend() }, { tabs: null });
      await voice.connect();
      expect(voice.status().connection).toBe('ready');
      await voice.disconnect();
      expect(voice.status().connection).toBe('disconnected');
      expect(served).toEqual(['recover']);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
