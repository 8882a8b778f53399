/**
 * The codec profiles a media peer offers, apart from the codecs themselves, so that the package's declarations
 * name them without reaching the codec library's.
 */

/** The codec profiles, the default first. */
export const CODEC_PROFILES = ['opus', 'pcmu-only'] as const;

/** Which codecs a media peer offers: Opus first and PCMU second, as hosted services offer browsers, or PCMU alone. */
export type CodecProfile = (typeof CODEC_PROFILES)[number];
