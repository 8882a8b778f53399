/**
 * What an INVITE asks of the page before anyone answers it, read from its headers and body: the extensions it
 * requires, the offer it carries, and how long it stands. Pure over the message's text, so each RFC rule is held
 * to a test on its own; the link's session acts on it. Part of the SIP chunk.
 */

/** The part of an INVITE this file reads: its headers by name, and its body. */
export interface InviteText {
  getHeader(name: string): string | undefined;
  body: string;
}

/**
 * The option tags the page honours in a request's `Require`: reliable provisional responses (RFC 3262) and
 * outbound (RFC 5626, which an edge may require of a flow's requests).
 */
export const SUPPORTED_OPTION_TAGS = ['100rel', 'outbound'];

/** The body types the page reads an offer from (RFC 3261 section 21.4.16: a 415 lists them in `Accept`). */
export const ACCEPTED_BODIES = 'application/sdp, multipart/mixed';

/** The comma-separated tokens of a header, lower case. */
const tokens = (value: string | undefined) => (value ?? '').split(',').map((token) => token.trim().toLowerCase()).filter(Boolean);

/** The extensions `Require` names that the page does not support (RFC 3261 section 8.2.2.3: a 420 lists them). */
export const unsupportedExtensions = (message: InviteText): string[] => tokens(message.getHeader('Require')).filter((tag) => !SUPPORTED_OPTION_TAGS.includes(tag));

/** Whether the INVITE requires its provisional responses reliable (RFC 3262 section 3). */
export const requiresReliable = (message: InviteText): boolean => tokens(message.getHeader('Require')).includes('100rel');

/**
 * What the INVITE's body offers: an SDP (`application/sdp`, or the `application/sdp` part of a `multipart/mixed`
 * body as a gateway sends SDP beside ISUP, RFC 5621 section 3 and RFC 3204), none (an offerless INVITE, RFC 3261
 * section 13.2.1: the page offers in its 2xx), or the status to refuse it with: 415 for a type the page cannot
 * read (RFC 3261 section 21.4.16), 488 for a multipart body without a session description.
 */
export function offerOf(message: InviteText): { sdp: string } | { sdp: undefined } | { refuse: 415 | 488 } {
  if (!message.body.trim()) return { sdp: undefined };
  const type = message.getHeader('Content-Type') ?? 'application/sdp';
  const [media = ''] = tokens(type.split(';')[0]);
  if (media === 'application/sdp') return { sdp: message.body };
  if (media !== 'multipart/mixed') return { refuse: 415 };
  const sdp = partsOf(message.body, type).find((part) => /^application\/sdp\b/i.test(part.type))?.content;
  return sdp ? { sdp } : { refuse: 488 };
}

/** The parts of a multipart body by `boundary` (RFC 2046 section 5.1.1), each its Content-Type and content. */
function partsOf(body: string, type: string): Array<{ type: string; content: string }> {
  const boundary = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  const delimiter = boundary?.[1] ?? boundary?.[2];
  if (!delimiter) return [];
  // Each part sits between `--boundary` lines; the last is closed by `--boundary--`.
  return body
    .split(`--${delimiter}`)
    .slice(1)
    .filter((part) => !part.startsWith('--'))
    .map((part) => {
      const text = part.replace(/^\r?\n/, '');
      const split = /\r?\n\r?\n/.exec(text);
      const head = split ? text.slice(0, split.index) : '';
      const content = split ? text.slice(split.index + split[0].length).replace(/\r?\n$/, '') : text;
      return { type: /^Content-Type:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? 'text/plain', content: content.endsWith('\n') ? content : `${content}\r\n` };
    });
}

/** How long the INVITE stands, from its `Expires` (RFC 3261 section 20.19, in seconds); undefined when unbounded. */
export function expiresMs(message: InviteText): number | undefined {
  const value = message.getHeader('Expires')?.trim();
  return value && /^\d+$/.test(value) ? Number(value) * 1000 : undefined;
}
