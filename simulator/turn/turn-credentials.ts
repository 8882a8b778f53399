import { createHmac } from 'node:crypto';

/**
 * Time-limited TURN credentials from a shared secret, the TURN REST API scheme (draft-uberti-behave-turn-rest
 * section 2.2, as coturn's `--use-auth-secret` checks them): the username is the expiry in Unix seconds, a
 * colon and the user; the credential is the base64 HMAC-SHA1 of that username keyed by the secret.
 */

/** One pair of TURN credentials. */
export interface TurnCredentials {
  username: string;
  credential: string;
}

/** Credentials for `user` that the TURN server takes until `expiresAtMs`. */
export function turnCredentials(secret: string, user: string, expiresAtMs: number): TurnCredentials {
  const username = `${Math.ceil(expiresAtMs / 1000)}:${user}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}
