import type { TimingEvent, VoiceBrowserStatus } from '../../lib/types.js';
import { createVoiceBrowserWith } from '../../lib/voice-browser.js';
import { FakeBackend } from './fake-backend.js';
import { FakeClock } from './fake-clock.js';
import { FakeSip } from './fake-sip.js';

/**
 * A helper wired to a fake clock, a fake backend and a fake SIP peer, all writing to one journal, for the
 * library's unit tests. Needs a DOM (happy-dom) for the audio element.
 */

export const CALL = { from: '+12025550199', to: '+12025550100' };
export const START = 1_700_000_000_000;

export interface WorldOptions {
  expiresAt?: string;
  /** The server of an earlier world: a fresh helper after a page reload. */
  backend?: FakeBackend;
}

export function setup(options: WorldOptions = {}) {
  const journal: string[] = [];
  const clock = new FakeClock(START);
  const backend = options.backend ?? new FakeBackend(journal);
  if (options.expiresAt) backend.sessionExpiresAt = options.expiresAt;
  const sip = new FakeSip(journal);
  const statuses: VoiceBrowserStatus[] = [];
  const timings: TimingEvent[] = [];
  const remoteAudio = document.createElement('audio');
  const voice = createVoiceBrowserWith(
    { backend, remoteAudio, onStatus: (status) => statuses.push(status), onTiming: (event) => timings.push(event) },
    { clock, openSipLink: sip.openSipLink },
  );
  return { journal, clock, backend, sip, statuses, timings, remoteAudio, voice };
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
