import type { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import type { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';
import type { URI } from 'sip.js/lib/grammar/uri.js';
import type { Clock } from '../../../core/clock.js';
import { VoiceBrowserError } from '../../../core/errors.js';
import { backoffMs } from './sip-reconnect.js';

/**
 * The link's registration (RFC 3261 section 10) over SIP.js's core: the REGISTER, its refresh and its end. The
 * core sends it, answers the digest challenge and matches the answer; this is what SIP.js's Registerer added,
 * and what the helper needs of it: the Contact with `reg-id` and `+sip.instance` (RFC 5626 outbound: this page
 * is one agent across its sockets, so a proxy sends a call's BYE down the new socket after a reconnect), the
 * binding's time read from the answer, a refresh at half of it, retried while the binding lasts, and the
 * registration told lost when a refusal says the credentials are gone or the time runs out.
 */

/**
 * The registration is refreshed halfway through its time, so a refresh whose timer a hidden page runs a minute
 * late is still well before the registrar's expiry, and a refresh the registrar cannot take yet has half the
 * binding's time to be retried in.
 */
const REFRESH_AT = 0.5;
/** The methods this page takes: those SIP.js's Registerer listed, and UPDATE (RFC 3311). */
const ALLOW = 'Allow: ACK,CANCEL,INVITE,MESSAGE,BYE,OPTIONS,INFO,NOTIFY,REFER,UPDATE';
/**
 * Refusals that say the credentials are gone: after the core answered a fresh challenge (401, 407), or the
 * registrar does not know them or will not take them (RFC 3261 section 21.4), or anywhere (section 21.6). Any
 * other refusal (a 5xx, a 408, the 503 the core makes up when a send fails) is worth trying again.
 */
const FINAL_REFUSALS: ReadonlySet<number> = new Set([401, 403, 404, 407, 410, 603, 604]);

/** Whether a registration's failure ends it for good: the registrar refused the credentials. */
export const isFinalRefusal = (error: unknown) => error instanceof VoiceBrowserError && FINAL_REFUSALS.has(error.status ?? 0);

export interface RegistrationOptions {
  /** The time asked for, in seconds. */
  expires: number;
  clock: Clock;
  random?: () => number;
  /**
   * The registration ended: `refused` when a refresh was refused for good ({@link isFinalRefusal}), `lapsed`
   * when the binding ran out before a refresh got through. Called once, from a registered binding.
   */
  onLost(why: 'refused' | 'lapsed'): void;
}

export interface Registration {
  /** Registers (or refreshes) once; rejects with the registrar's refusal (`status`, `retryAfterMs` set). */
  register(): Promise<void>;
  /** Removes the binding, if there is one; resolves on any answer, or after `limitMs` without one. */
  unregister(limitMs: number): Promise<void>;
  /** Stops the refresh and expiry timers (the socket dropped, or the link closes). */
  stop(): void;
  /** The registrar's last 2xx confirmed outbound (`Require: outbound`, RFC 5626 section 6): its edge answers keep-alive pings. */
  readonly outbound: boolean;
}

/** A refusal as an error: its status and `Retry-After` kept for whoever decides on the next attempt. */
function refusal(message: IncomingResponseMessage): VoiceBrowserError {
  const retryAfter = Number.parseInt(message.getHeader('retry-after') ?? '', 10);
  return new VoiceBrowserError('connection_failed', `SIP registration failed: ${message.statusCode} ${message.reasonPhrase}`, {
    status: message.statusCode,
    ...(retryAfter >= 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
  });
}

/** The registration of one link's Contact under the session's address-of-record, over `core`. */
export function createRegistration(core: UserAgentCore, aor: URI, contact: URI, { expires, clock, random = Math.random, onLost }: RegistrationOptions): Registration {
  const instance = crypto.randomUUID();
  const registrar = aor.clone();
  registrar.user = undefined;
  // One request, its CSeq counted up for each REGISTER, as RFC 3261 section 10.2 asks of one Call-ID.
  const request = core.makeOutgoingRequestMessage('REGISTER', registrar, aor, aor, {});
  /** The time asked for: the session's, or the registrar's least when it said ours was too brief. */
  let asked = expires;
  /** The `Min-Expires` of the last `423 Interval Too Brief`. */
  let minExpires = NaN;
  let refresh: unknown;
  let expiry: unknown;
  let bound = false;
  let outbound = false;
  /** Counts the timers' lives: a REGISTER answered after stop() schedules nothing. */
  let generation = 0;
  const stop = () => {
    generation++;
    clock.clearTimeout(refresh);
    clock.clearTimeout(expiry);
  };
  const lost = (why: 'refused' | 'lapsed') => {
    stop();
    bound = false;
    onLost(why);
  };

  /** Sends one REGISTER asking for `seconds`; resolves with the registrar's 2xx, rejects with its refusal. */
  const send = (seconds: number) =>
    new Promise<IncomingResponseMessage>((resolve, reject) => {
      request.cseq++;
      request.setHeader('cseq', `${request.cseq} REGISTER`);
      // The core leaves the last answer to a challenge on the request: sent again, it replays a nonce the
      // registrar may have called stale since. Each REGISTER is challenged afresh instead (RFC 3261 section 22.1).
      request.setHeader('authorization', []);
      request.setHeader('proxy-authorization', []);
      request.extraHeaders = [`Contact: <${contact}>;reg-id=1;+sip.instance="<urn:uuid:${instance}>";expires=${seconds}`, ALLOW];
      const fail = ({ message }: { message: IncomingResponseMessage }) => {
        if (message.statusCode === 423) minExpires = Number.parseInt(message.getHeader('min-expires') ?? '', 10);
        reject(refusal(message));
      };
      core.register(request, { onAccept: ({ message }) => resolve(message), onReject: fail, onRedirect: fail });
    });

  /**
   * One REGISTER for the time asked; a `423 Interval Too Brief` is asked again for its `Min-Expires` (RFC 3261
   * section 10.2.8), which later refreshes ask for too.
   */
  const sendAsked = async () => {
    try {
      return await send(asked);
    } catch (error) {
      if (!(error instanceof VoiceBrowserError && error.status === 423 && minExpires > asked)) throw error;
      asked = minExpires;
      return send(asked);
    }
  };

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

  /** A refresh that failed: tried again with back-off, never later than `Retry-After` asks, while the binding lasts. */
  const retry = (error: unknown, failures: number) => {
    if (isFinalRefusal(error)) return lost('refused');
    const wait = Math.max(backoffMs(failures, random), error instanceof VoiceBrowserError ? (error.retryAfterMs ?? 0) : 0);
    refresh = clock.setTimeout(() => renew(failures + 1), wait);
  };
  const renew = (failures: number) => {
    const mine = generation;
    register(false).catch((error: unknown) => mine === generation && retry(error, failures));
  };

  async function register(fresh = true): Promise<void> {
    if (fresh) stop();
    const mine = generation;
    const answer = await sendAsked();
    const seconds = granted(answer);
    if (!(seconds > 0)) throw new VoiceBrowserError('connection_failed', 'SIP registration failed: the registrar bound no Contact of ours');
    if (mine !== generation) return;
    stop();
    bound = true;
    outbound = /\boutbound\b/i.test(answer.getHeaders('require').join(','));
    refresh = clock.setTimeout(() => renew(1), seconds * 1000 * REFRESH_AT);
    // The binding's end, timed from now: a refresh that never got through by then has lost the registration.
    expiry = clock.setTimeout(() => lost('lapsed'), seconds * 1000);
  }

  return {
    register: () => register(),
    async unregister(limitMs) {
      stop();
      if (!bound) return;
      bound = false;
      await new Promise<void>((resolve) => {
        const timer = clock.setTimeout(resolve, limitMs);
        void send(0)
          .catch(() => undefined)
          .then(() => {
            clock.clearTimeout(timer);
            resolve();
          });
      });
    },
    stop,
    get outbound() {
      return outbound;
    },
  };
}
