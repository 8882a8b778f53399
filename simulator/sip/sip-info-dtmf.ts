/**
 * DTMF sent out of band, in SIP INFO requests inside the call's dialog: the two bodies pages and phones use
 * for it (`application/dtmf-relay`, `application/dtmf`). In-band RFC 4733 events are `parseTelephoneEvent`'s.
 */

/**
 * The digit of a SIP INFO DTMF body: `application/dtmf-relay` (`Signal=5`) or `application/dtmf` (the digit
 * alone), upper-cased; undefined for any other body or a character that is no DTMF digit.
 */
export function sipInfoDigit(contentType: string, body: string): string | undefined {
  const type = contentType.split(';')[0]?.trim().toLowerCase();
  const digit = type === 'application/dtmf-relay' ? /Signal\s*=\s*(\S)/i.exec(body)?.[1] : type === 'application/dtmf' ? body.trim() : undefined;
  return digit && /^[0-9*#A-D]$/i.test(digit) ? digit.toUpperCase() : undefined;
}
