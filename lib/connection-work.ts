import { disconnect, recover } from './api/session/connection-control.js';

/**
 * What disconnect() and recover() load: the one entry of the connection's cleanup, without SIP.js. A page that only
 * recovers or cleans up downloads this small chunk alone, and the initial load carries neither operation; connect()
 * gets the same operations with the SIP chunk.
 */

/** The operations that end or find a session: they need no SIP link. */
export const parts = { disconnect, recover };

/** The chunk's parts, as the helper takes them. */
export type CleanupParts = typeof parts;
