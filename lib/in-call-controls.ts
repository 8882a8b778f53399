import { toVoiceError, VoiceBrowserError } from './errors.js';
import type { SipLink } from './sip-adapter.js';
import type { StatusStore } from './status-store.js';

/** spec 4.9's two controls of an answered call: mute and DTMF. */

const DTMF_DIGIT = /^[0-9*#A-D]$/;

export interface InCallControlsOptions {
  link(): SipLink | undefined;
  store: StatusStore;
  /** Whether a call is up that has not ended (its audio may still be connecting). */
  callActive(): boolean;
  /** Shows `error` in the status and rejects with it. */
  fail(error: VoiceBrowserError): Promise<never>;
}

export function createInCallControls(options: InCallControlsOptions) {
  const { link, store } = options;

  function requireMedia(what: string): SipLink {
    const current = link();
    if (!current || !options.callActive() || store.get().audio === 'none') {
      throw new VoiceBrowserError('no_active_call', `${what} needs an answered call; wait for the call to connect`);
    }
    return current;
  }

  return {
    /** spec 4.9: mute affects outgoing audio only; the wish holds for later calls too. */
    mute(muted: boolean): void {
      if (typeof muted !== 'boolean') throw new VoiceBrowserError('invalid_argument', 'mute() takes true or false');
      link()?.setMuted(muted);
      store.commit({ muted });
    },
    /** spec 4.9: exactly one of 0-9 * # A-D; a digit whose delivery is uncertain is not resent. */
    async sendDtmf(digit: string): Promise<void> {
      if (typeof digit !== 'string' || !DTMF_DIGIT.test(digit)) {
        return options.fail(new VoiceBrowserError('invalid_argument', 'sendDtmf() takes exactly one of 0-9, *, #, A-D (uppercase)'));
      }
      try {
        await requireMedia('sendDtmf()').sendDtmf(digit);
      } catch (cause) {
        return options.fail(toVoiceError(cause, 'dtmf_outcome_unknown', `digit ${digit} may not have arrived`));
      }
    },
  };
}
