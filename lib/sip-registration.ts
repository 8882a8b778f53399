import type { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import type { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';
import type { URI } from 'sip.js/lib/grammar/uri.js';
import type { Clock } from './clock.js';
import { VoiceBrowserError } from './errors.js';

/**
 * The link's registration (RFC 3261 section 10) over SIP.js's core: the REGISTER, its refresh and its end. The
 * core sends it, answers the digest challenge and matches the answer; this is what SIP.js's Registerer added,
 * and what the helper needs of it: the Contact with `reg-id` and `+sip.instance` (RFC 5626 outbound: this page
 * is one agent across its sockets, so a proxy sends a call's BYE down the new socket after a reconnect), the
 * binding's time read from the answer, a refresh at half of it, and the registration told lost when a refresh
 * is refused or the time runs out. With sip-adapter.ts and sip-session.ts the only files that import SIP.js.
 */

/**
 * The registration is refreshed halfway through its time, so a refresh whose timer a hidden page runs a minute
 * late is still well before the registrar's expiry.
 */
const REFRESH_AT = 0.5;
/** The methods this page takes, as SIP.js's Registerer listed them. */
const ALLOW = 'Allow: ACK,CANCEL,INVITE,MESSAGE,BYE,OPTIONS,INFO,NOTIFY,REFER';

export interface RegistrationOptions {
  /** The time asked for, in seconds. */
  expires: number;
  clock: Clock;
  /** A refresh was refused, or the binding ran out: called once, from an `up` registration. */
  onLost(): void;
}

export interface Registration {
  /** Registers (or refreshes) once; rejects with the registrar's refusal. */
  register(): Promise<void>;
  /** Removes the binding, if there is one; resolves on any answer. */
  unregister(): Promise<void>;
  /** Stops the refresh and expiry timers (the socket dropped, or the link closes). */
  stop(): void;
}

export function createRegistration(core: UserAgentCore, aor: URI, contact: URI, { expires, clock, onLost }: RegistrationOptions): Registration {
  const instance = crypto.randomUUID();
  const registrar = aor.clone();
  registrar.user = undefined;
  // One request, its CSeq counted up for each REGISTER, as RFC 3261 section 10.2 asks of one Call-ID.
  const request = core.makeOutgoingRequestMessage('REGISTER', registrar, aor, aor, {});
  let refresh: unknown;
  let expiry: unknown;
  let bound = false;
  const stop = () => {
    clock.clearTimeout(refresh);
    clock.clearTimeout(expiry);
  };
  const lost = () => {
    stop();
    bound = false;
    onLost();
  };

  /** Sends one REGISTER asking for `seconds`; resolves with the registrar's 2xx, rejects with its refusal. */
  const send = (seconds: number) =>
    new Promise<IncomingResponseMessage>((resolve, reject) => {
      request.cseq++;
      request.setHeader('cseq', `${request.cseq} REGISTER`);
      request.extraHeaders = [`Contact: <${contact}>;reg-id=1;+sip.instance="<urn:uuid:${instance}>";expires=${seconds}`, ALLOW];
      const fail = (why: string) => reject(new VoiceBrowserError('connection_failed', `SIP registration failed: ${why}`));
      core.register(request, {
        onAccept: ({ message }) => resolve(message),
        onReject: ({ message }) => fail(`${message.statusCode} ${message.reasonPhrase}`),
        onRedirect: ({ message }) => fail(`${message.statusCode} ${message.reasonPhrase}`),
      });
    });

  /**
   * The binding's time as the registrar granted it: our Contact's `expires` among those it lists (RFC 3261
   * section 10.2.4), else its Expires header. None of ours listed: not registered.
   */
  const granted = (response: IncomingResponseMessage): number => {
    const contacts = response.getHeaders('contact').length;
    for (let index = 0; index < contacts; index++) {
      const listed = response.parseHeader('contact', index) as { uri: URI; getParam(name: string): string | undefined } | undefined;
      if (listed && listed.uri.user === contact.user) return Number(listed.getParam('expires') ?? response.getHeader('expires'));
    }
    return NaN;
  };

  async function register(): Promise<void> {
    stop();
    const seconds = granted(await send(expires));
    if (!(seconds > 0)) throw new VoiceBrowserError('connection_failed', 'SIP registration failed: the registrar bound no Contact of ours');
    bound = true;
    refresh = clock.setTimeout(() => void register().catch(lost), seconds * 1000 * REFRESH_AT);
    expiry = clock.setTimeout(lost, seconds * 1000);
  }

  return {
    register,
    async unregister() {
      stop();
      if (!bound) return;
      bound = false;
      await send(0).catch(() => undefined);
    },
    stop,
  };
}
