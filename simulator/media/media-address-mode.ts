/**
 * The simulator's media-address modes, apart from their werift configuration so the package's published types
 * name them without werift's.
 */

/** The modes, the first the default: `host` offers this machine's interface addresses; `loopback` only 127.0.0.1. */
export const MEDIA_ADDRESS_MODES = ['host', 'loopback'] as const;

/** `host`: this machine's non-internal IPv4 addresses (127.0.0.1 when none is up); `loopback`: 127.0.0.1 alone. */
export type MediaAddressMode = (typeof MEDIA_ADDRESS_MODES)[number];
