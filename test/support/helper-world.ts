import type { TimingEvent, VoiceBrowserStatus } from '../../lib/core/types.js';
import type { FakeBackend } from '../../lib/testing/fake-backend.js';
import { createTestVoiceBrowser } from '../../lib/testing/index.js';

/**
 * A helper wired to a fake clock, a fake backend and a fake SIP peer, all writing to one journal, for the
 * library's unit tests: `createTestVoiceBrowser` of the testing kit, plus the statuses and timings it
 * reported. Needs a DOM (happy-dom) for the audio element.
 */

export const CALL = { from: '+12025550199', to: '+12025550100' };
export const START = 1_700_000_000_000;

export interface WorldOptions {
  expiresAt?: string;
  /** The server of an earlier world: a fresh helper after a page reload. */
  backend?: FakeBackend;
}

export function setup(options: WorldOptions = {}) {
  const statuses: VoiceBrowserStatus[] = [];
  const timings: TimingEvent[] = [];
  const remoteAudio = document.createElement('audio');
  // The kit integrators use (voice-browser/testing), with the page's audio element and both callbacks recorded.
  const world = createTestVoiceBrowser({
    ...(options.backend ? { backend: options.backend } : {}),
    startAt: START,
    remoteAudio,
    onStatus: (status) => statuses.push(status),
    onTiming: (event) => timings.push(event),
  });
  if (options.expiresAt) world.backend.sessionExpiresAt = options.expiresAt;
  return { ...world, statuses, timings, remoteAudio };
}

export type World = ReturnType<typeof setup>;

export async function connected(options: WorldOptions = {}): Promise<World> {
  const world = setup(options);
  await world.voice.connect();
  return world;
}

/** Connected, with call-1 admitted (202) for key-1. */
export async function inCall(options: WorldOptions = {}): Promise<World> {
  const world = await connected(options);
  await world.voice.startCall(CALL, { idempotencyKey: 'key-1' });
  return world;
}

/** In a call whose INVITE was answered and whose recipient answered: audio is up. */
export async function talking(): Promise<World> {
  const world = await inCall();
  world.sip.invite('call-1');
  world.backend.setCall('call-1', { state: 'connected' });
  await world.clock.advance(1000);
  return world;
}
