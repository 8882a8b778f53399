import type { IncomingRequestMessage } from 'sip.js/lib/core/index.js';
import { challengeHeader } from '../digest.js';
import type { EdgeBehaviour } from './edge-profile.js';

/**
 * What an edge's registrar says beyond our own (`EDGE_PROFILES`): its challenges, its refusals of a binding's
 * lifetime or of a refresh, and how it words the 2xx. Pure functions of the profile's behaviour and the request;
 * `RegistrationHandler` applies them.
 */

/** A refusal of a REGISTER that authenticated. */
export interface RegisterRefusal {
  statusCode: number;
  reasonPhrase: string;
  extraHeaders: string[];
}

/** How long a `503` asks the page to wait before it tries again (RFC 3261 section 21.5.4). */
export const REFRESH_RETRY_AFTER_SECONDS = 2;

/** The `WWW-Authenticate` headers of a 401: one per algorithm the edge offers, in its order (RFC 8760 section 2.4). */
export function challengeHeaders(behaviour: EdgeBehaviour, realm: string, nonce: string, stale: boolean): string[] {
  return behaviour.challenges.map((algorithm) => `WWW-Authenticate: ${challengeHeader(realm, nonce, stale, algorithm)}`);
}

/**
 * Whether the edge refuses an authenticated REGISTER asking for `requested` seconds: `423 Interval Too Brief` with
 * its `Min-Expires` below the minimum (RFC 3261 section 10.3 step 7), or `503` with `Retry-After` to the
 * `refreshNumber`th refresh of a binding when the profile refuses every so many.
 */
export function refuseRegister(behaviour: EdgeBehaviour, refuseEveryNth: number, requested: number, refreshNumber: number | undefined): RegisterRefusal | undefined {
  const min = behaviour.minExpiresSeconds;
  if (min !== undefined && requested < min) return { statusCode: 423, reasonPhrase: 'Interval Too Brief', extraHeaders: [`Min-Expires: ${min}`] };
  if (refreshNumber !== undefined && refuseEveryNth > 0 && refreshNumber % refuseEveryNth === 0) {
    return { statusCode: 503, reasonPhrase: 'Service Unavailable', extraHeaders: [`Retry-After: ${REFRESH_RETRY_AFTER_SECONDS}`] };
  }
  return undefined;
}

/** Whether the REGISTER asks for outbound (RFC 5626 section 4.2.1): `Supported: outbound` and a `reg-id` Contact. */
function asksForOutbound(message: IncomingRequestMessage, contactHeader: string): boolean {
  const supported = message.getHeaders('supported').join(',');
  return /\boutbound\b/i.test(supported) && /;\s*reg-id=/i.test(contactHeader);
}

/**
 * Whether the first hop keeps the flow: the registrar itself (no `Path`), or an edge that said so with `ob` on its
 * Path entry (RFC 5626 section 6). An edge that relays without it answers no keep-alive of the page's.
 */
const firstHopKeepsFlow = (path: readonly string[]) => path.length === 0 || /;ob\b/i.test(path[0] ?? '');

/**
 * The headers of the REGISTER's 2xx: the Contact echoed (with its `expires` parameter unless the edge gives the
 * time only as a header), `Expires`, and `Require: outbound` where the edge confirms outbound the REGISTER asked
 * for (RFC 5626 section 5.2: the registrar's promise that keep-alives are answered).
 */
export function registerOkHeaders(behaviour: EdgeBehaviour, message: IncomingRequestMessage, contactHeader: string, granted: number, path: readonly string[] = []): string[] {
  const withoutExpires = contactHeader.replace(/;\s*expires=\d+/i, '');
  const contact = behaviour.expiresInContact ? `${withoutExpires};expires=${granted}` : withoutExpires;
  const headers = [`Contact: ${contact}`, `Expires: ${granted}`];
  if (behaviour.confirmOutbound && asksForOutbound(message, contactHeader) && firstHopKeepsFlow(path)) headers.push('Require: outbound');
  // RFC 3327 section 5.3: the stored Path goes back in the 200 to a UA that said it supports it.
  if (path.length && /(^|,)\s*path\s*(,|$)/i.test(message.getHeaders('supported').join(','))) headers.push(`Path: ${path.join(', ')}`);
  return headers;
}
