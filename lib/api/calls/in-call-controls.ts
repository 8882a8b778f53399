import { toVoiceError, VoiceBrowserError } from '../../core/errors.js';
import type { SipLink } from '../../runtime/sip-link.js';

/**
 * spec 4.9's two controls of an answered call, over the SIP link: mute and DTMF. Each throws a coded
 * {@link VoiceBrowserError}; the helper shows it in the status.
 */

const DTMF_DIGIT = /^[0-9*#A-D]$/;

/** spec 4.9: mute affects outgoing audio only; the wish holds for later calls too, so it needs no call. */
export function setMuted(link: SipLink | undefined, muted: unknown): boolean {
  if (typeof muted !== 'boolean') throw new VoiceBrowserError('invalid_argument', 'mute() takes true or false');
  link?.setMuted(muted);
  return muted;
}

/**
 * Exactly one of 0-9 * # A-D, on a call whose audio this page holds (`refusal` null, else why not, in the
 * status's words); a digit whose delivery is uncertain is reported `dtmf_outcome_unknown` and never resent.
 */
export async function sendDigit(link: SipLink | undefined, refusal: string | null, digit: unknown): Promise<void> {
  if (typeof digit !== 'string' || !DTMF_DIGIT.test(digit)) {
    throw new VoiceBrowserError('invalid_argument', 'sendDtmf() takes exactly one of 0-9, *, #, A-D (uppercase)');
  }
  if (refusal !== null || !link) throw new VoiceBrowserError('no_active_call', refusal ?? "sendDtmf() needs this page's SIP link: connect first");
  try {
    await link.sendDtmf(digit);
  } catch (cause) {
    throw toVoiceError(cause, 'dtmf_outcome_unknown', `digit ${digit} may not have arrived`);
  }
}
