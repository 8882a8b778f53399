import type { IncomingResponseMessage } from 'sip.js/lib/core/messages/incoming-response-message.js';
import type { OutgoingRequestMessage } from 'sip.js/lib/core/messages/outgoing-request-message.js';
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

/**
 * One registration's state: the REGISTER it counts up, the time it asks for, its two timers and what the
 * registrar's last 2xx said.
 */
interface Binding extends RegistrationOptions {
  readonly core: UserAgentCore;
  readonly contact: URI;
  readonly random: () => number;
  /** This page's `+sip.instance` (RFC 5626 section 4.1): one for all its sockets. */
  readonly instance: string;
  /** One request, its CSeq counted up for each REGISTER, as RFC 3261 section 10.2 asks of one Call-ID. */
  readonly request: OutgoingRequestMessage;
  /** The time asked for: the session's, or the registrar's least when it said ours was too brief. */
  asked: number;
  /** The `Min-Expires` of the last `423 Interval Too Brief`. */
  minExpires: number;
  refresh?: unknown;
  expiry?: unknown;
  bound: boolean;
  outbound: boolean;
  /** Counts the timers' lives: a REGISTER answered after stop() schedules nothing. */
  generation: number;
}

function stop(binding: Binding): void {
  binding.generation++;
  binding.clock.clearTimeout(binding.refresh);
  binding.clock.clearTimeout(binding.expiry);
}

function lost(binding: Binding, why: 'refused' | 'lapsed'): void {
  stop(binding);
  binding.bound = false;
  binding.onLost(why);
}

/** Sends one REGISTER asking for `seconds`; resolves with the registrar's 2xx, rejects with its refusal. */
function send(binding: Binding, seconds: number): Promise<IncomingResponseMessage> {
  const { request, contact, instance } = binding;
  return new Promise((resolve, reject) => {
    request.cseq++;
    request.setHeader('cseq', `${request.cseq} REGISTER`);
    // The core leaves the last answer to a challenge on the request: sent again, it replays a nonce the
    // registrar may have called stale since. Each REGISTER is challenged afresh instead (RFC 3261 section 22.1).
    request.setHeader('authorization', []);
    request.setHeader('proxy-authorization', []);
    request.extraHeaders = [`Contact: <${contact}>;reg-id=1;+sip.instance="<urn:uuid:${instance}>";expires=${seconds}`, ALLOW];
    const fail = ({ message }: { message: IncomingResponseMessage }) => {
      if (message.statusCode === 423) binding.minExpires = Number.parseInt(message.getHeader('min-expires') ?? '', 10);
      reject(refusal(message));
    };
    binding.core.register(request, { onAccept: ({ message }) => resolve(message), onReject: fail, onRedirect: fail });
  });
}

/**
 * One REGISTER for the time asked; a `423 Interval Too Brief` is asked again for its `Min-Expires` (RFC 3261
 * section 10.2.8), which later refreshes ask for too.
 */
async function sendAsked(binding: Binding): Promise<IncomingResponseMessage> {
  try {
    return await send(binding, binding.asked);
  } catch (error) {
    if (!(error instanceof VoiceBrowserError && error.status === 423 && binding.minExpires > binding.asked)) throw error;
    binding.asked = binding.minExpires;
    return send(binding, binding.asked);
  }
}

/**
 * The binding's time as the registrar granted it: our Contact's `expires` among those it lists (RFC 3261
 * section 10.2.4), else its Expires header. None of ours listed: not registered.
 */
function granted(response: IncomingResponseMessage, contact: URI): number {
  const contacts = response.getHeaders('contact').length;
  for (let index = 0; index < contacts; index++) {
    const listed = response.parseHeader('contact', index) as { uri: URI; getParam(name: string): string | undefined } | undefined;
    if (listed && listed.uri.user === contact.user) return Number(listed.getParam('expires') ?? response.getHeader('expires'));
  }
  return NaN;
}

/** A refresh that failed: tried again with back-off, never later than `Retry-After` asks, while the binding lasts. */
function retry(binding: Binding, error: unknown, failures: number): void {
  if (isFinalRefusal(error)) return lost(binding, 'refused');
  const wait = Math.max(backoffMs(failures, binding.random), error instanceof VoiceBrowserError ? (error.retryAfterMs ?? 0) : 0);
  binding.refresh = binding.clock.setTimeout(() => renew(binding, failures + 1), wait);
}

/** A refresh: the REGISTER again, retried on failure unless the binding's timers were stopped meanwhile. */
function renew(binding: Binding, failures: number): void {
  const mine = binding.generation;
  register(binding, false).catch((error: unknown) => mine === binding.generation && retry(binding, error, failures));
}

/** Registers (fresh: after stopping the timers) and times the refresh and the binding's end from the answer. */
async function register(binding: Binding, fresh: boolean): Promise<void> {
  if (fresh) stop(binding);
  const mine = binding.generation;
  const answer = await sendAsked(binding);
  const seconds = granted(answer, binding.contact);
  if (!(seconds > 0)) throw new VoiceBrowserError('connection_failed', 'SIP registration failed: the registrar bound no Contact of ours');
  if (mine !== binding.generation) return;
  stop(binding);
  binding.bound = true;
  binding.outbound = /\boutbound\b/i.test(answer.getHeaders('require').join(','));
  binding.refresh = binding.clock.setTimeout(() => renew(binding, 1), seconds * 1000 * REFRESH_AT);
  // The binding's end, timed from now: a refresh that never got through by then has lost the registration.
  binding.expiry = binding.clock.setTimeout(() => lost(binding, 'lapsed'), seconds * 1000);
}

/** Removes the binding, if there is one: a REGISTER for no time, waited for until an answer or `limitMs`. */
async function unregister(binding: Binding, limitMs: number): Promise<void> {
  stop(binding);
  if (!binding.bound) return;
  binding.bound = false;
  await new Promise<void>((resolve) => {
    const timer = binding.clock.setTimeout(resolve, limitMs);
    void send(binding, 0)
      .catch(() => undefined)
      .then(() => {
        binding.clock.clearTimeout(timer);
        resolve();
      });
  });
}

/** The registration of one link's Contact under the session's address-of-record, over `core`. */
export function createRegistration(core: UserAgentCore, aor: URI, contact: URI, options: RegistrationOptions): Registration {
  const registrar = aor.clone();
  registrar.user = undefined;
  const binding: Binding = {
    ...options,
    random: options.random ?? Math.random,
    core,
    contact,
    instance: crypto.randomUUID(),
    request: core.makeOutgoingRequestMessage('REGISTER', registrar, aor, aor, {}),
    asked: options.expires,
    minExpires: NaN,
    bound: false,
    outbound: false,
    generation: 0,
  };
  return {
    register: () => register(binding, true),
    unregister: (limitMs) => unregister(binding, limitMs),
    stop: () => stop(binding),
    get outbound() {
      return binding.outbound;
    },
  };
}
