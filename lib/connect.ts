import * as operations from './connect-parts.js';
import { openSipLink } from './platform/web/sip/sip-adapter.js';

/**
 * What loads on the first `connect()`: the one entry of the SIP chunk. The helper imports this file dynamically,
 * so SIP.js, the link over it, and every operation that only acts with a link arrive in one download, and a page
 * that only recovers or cleans up never fetches them. The link itself re-exports nothing: the chunk is drawn
 * here, at the top, and not by the SIP layer reaching up to the operations.
 */

/** The SIP chunk's parts: the operations that act with a link, and the link over SIP.js. */
export const parts = { ...operations, openSipLink };
