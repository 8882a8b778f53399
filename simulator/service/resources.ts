import { randomBytes } from 'node:crypto';

/**
 * How the simulated service names and owns its resources: ids and secrets drawn at random, and the API key
 * that issued each resource, which scopes every lookup (spec 4.7).
 */

/** A resource and the API key that issued it: another key, even of the same account, sees none of it (spec 4.7). */
export interface Owned<T> {
  owner: string;
  value: T;
}

/** `bytes` random letters and digits, for usernames and SIP passwords. */
export const token = (bytes: number): string => randomBytes(bytes).toString('base64url').replace(/[-_]/g, '').slice(0, bytes);

/** A resource id: its kind's prefix (`ag`, `bs`, `bc`), an underscore and random letters and digits. */
export const newId = (prefix: string): string => `${prefix}_${token(20)}`;
