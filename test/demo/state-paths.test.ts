import { describe, expect, it } from 'vitest';
import { appendState, emptyPaths, trackPaths } from '../../demo/models/state-paths.js';
import type { VoiceBrowserStatus } from '../../lib/index.js';
import { DISCONNECTED } from '../support/demo-status.js';

const base = DISCONNECTED;

describe('state paths of the live diagram', () => {
  it('records each state once per visit, in order, and keeps only the last steps when asked', () => {
    expect(appendState(['a'], 'a')).toEqual(['a']);
    expect(appendState(['a'], 'b')).toEqual(['a', 'b']);
    expect(appendState(['a', 'b'], 'a')).toEqual(['a', 'b', 'a']);
    expect(appendState(['a', 'b', 'c'], 'd', 3)).toEqual(['b', 'c', 'd']);
  });

  it('follows the connection and the current call, starting a new call path for a new call id', () => {
    const statuses: VoiceBrowserStatus[] = [
      { ...base, connection: 'connecting' },
      { ...base, connection: 'ready' },
      { ...base, connection: 'ready', busy: true, call: { id: 'bc_1', state: 'waiting_agent' } },
      { ...base, connection: 'ready', busy: true, call: { id: 'bc_1', state: 'dialing_recipient' } },
      { ...base, connection: 'ready', busy: true, call: { id: 'bc_1', state: 'connected' } },
      { ...base, connection: 'ready', busy: true, call: { id: 'bc_1', state: 'connected' } },
      { ...base, connection: 'ready', call: { id: 'bc_1', state: 'ended' } },
    ];
    const paths = statuses.reduce(trackPaths, emptyPaths);
    expect(paths.connection).toEqual(['connecting', 'ready']);
    expect(paths.call).toEqual(['waiting_agent', 'dialing_recipient', 'connected', 'ended']);

    const requesting = trackPaths(paths, { ...base, connection: 'ready', busy: true });
    expect(requesting.call).toEqual(paths.call);
    const next = trackPaths(requesting, { ...base, connection: 'ready', busy: true, call: { id: 'bc_2', state: 'waiting_agent' } });
    expect(next).toMatchObject({ callId: 'bc_2', call: ['waiting_agent'] });
  });
});
