import { createHash } from 'node:crypto';
import { charCount } from '../../contract/voice-input.js';

/**
 * The `externalSubject` the service knows a user by (at most 200 characters, derived from the
 * authenticated identity, stable per user).
 */

const MAX_SUBJECT = 200;

/** The logged-in user, as the integrator's `authenticate` returns it. */
export interface ProxyUser {
  /** Stable per user; becomes the `externalSubject` (as is up to 200 characters, else its SHA-256). */
  id: string;
  /** Shown as the agent's name. */
  name?: string;
  /**
   * What the user supervises (docs/desk.md, "Supervisors and recordings"): the calls in progress of these agents,
   * named by the `id` this same `authenticate` gives each of them, and of these queues, by their queue ids.
   * A supervisor lists those calls, listens in (monitor) and fetches their recordings. Absent: nobody's.
   */
  supervisor?: SupervisorRole;
}

/** The `supervisor` of a {@link ProxyUser}: whose calls the user may list, monitor and fetch the recordings of. */
export interface SupervisorRole {
  /** The ids of the users (as `authenticate` returns them) whose calls this user supervises. */
  agents?: readonly string[];
  /** The queue ids whose calls (bridged to any agent) this user supervises. */
  queues?: readonly string[];
}

/**
 * The user's `externalSubject`: their id as is when it fits in 200 characters (code points, as the spec
 * counts), else `sha256:` and the id's SHA-256 in base64url (50 characters), the same for every request.
 *
 * @throws Error when `authenticate` returned a user without a non-empty string id (an integration bug: 500).
 */
export function subjectOf(user: ProxyUser): string {
  if (typeof user.id !== 'string' || user.id.length === 0) {
    throw new Error('authenticate() must return a user whose id is a non-empty string (it becomes the externalSubject)');
  }
  if (charCount(user.id) <= MAX_SUBJECT) return user.id;
  return `sha256:${createHash('sha256').update(user.id).digest('base64url')}`;
}

/** The agent's name: the user's name, or else the subject, cut to 200 characters without splitting one. */
export function agentName(user: ProxyUser, subject: string): string {
  return Array.from(user.name || subject)
    .slice(0, MAX_SUBJECT)
    .join('');
}
