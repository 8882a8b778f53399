import type { VoiceBrowserStatus } from 'voice-browser';

/**
 * The paths the page has taken through the connection states and the current call's states (spec 3.2), for
 * the live diagram. Pure: the model feeds it every status.
 */

export interface StatePaths {
  /** The call whose path `call` is; a new call starts a new path. */
  callId: string | null;
  call: string[];
  connection: string[];
}

export const emptyPaths: StatePaths = { callId: null, call: [], connection: [] };

/** How many connection states the diagram remembers. */
const CONNECTION_STEPS = 12;

/** Appends `state` unless it is already the last one, keeping at most `limit` entries. */
export function appendState(path: readonly string[], state: string, limit = Infinity): string[] {
  if (path[path.length - 1] === state) return [...path];
  return [...path, state].slice(-limit);
}

export function trackPaths(paths: StatePaths, status: VoiceBrowserStatus): StatePaths {
  const connection = appendState(paths.connection, status.connection, CONNECTION_STEPS);
  const call = status.call;
  // A new attempt has no call yet: the last call's path stays until the new call is named.
  if (!call) return { ...paths, connection };
  if (call.id !== paths.callId) return { callId: call.id, call: [call.state], connection };
  return { callId: call.id, call: appendState(paths.call, call.state), connection };
}
