import { Grammar } from 'sip.js/lib/core/index.js';

/**
 * Where a SIP message goes over UDP, and what the receiving side stamps on a request's Via, for the simulator's
 * UDP side (`SipUdpSide`): the transport layer's rules of RFC 3261 section 18 with RFC 3581's `rport`. Only IP
 * addresses are used (no DNS, RFC 3263): the simulator and its edge are both on loopback.
 */

/** An address and port to send a datagram to. */
export interface UdpDestination {
  address: string;
  port: number;
}

/** RFC 3261 section 19.1.2: a SIP URI or Via without a port means 5060. */
const SIP_DEFAULT_PORT = 5060;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** The header section's lines (before the empty line), without the start line. */
function headerLines(text: string): string[] {
  const end = text.indexOf('\r\n\r\n');
  return (end < 0 ? text : text.slice(0, end)).split('\r\n').slice(1);
}

/** The index and value of the first header named `long` or its compact form `short` (RFC 3261 section 7.3.3). */
function firstHeader(lines: string[], long: string, short: string): { index: number; value: string } | undefined {
  const pattern = new RegExp(`^(${long}|${short})\\s*:\\s*`, 'i');
  const index = lines.findIndex((line) => pattern.test(line));
  const line = lines[index];
  return line === undefined ? undefined : { index, value: line.replace(pattern, '') };
}

/** The first value of a header whose values may be comma-separated (RFC 3261 section 7.3.1). */
function firstValue(value: string): string {
  return value.split(',')[0]?.trim() ?? '';
}

/** Parses a Via value `SIP/2.0/UDP host[:port];param=value;...` into its sent-by and parameters. */
function parseVia(value: string): { host: string; port: number | undefined; params: Map<string, string | undefined> } | undefined {
  const match = /^SIP\s*\/\s*2\.0\s*\/\s*\w+\s+([^;:\s]+)(?::(\d+))?\s*(;.*)?$/i.exec(value);
  if (!match) return undefined;
  const params = new Map<string, string | undefined>();
  for (const param of (match[3] ?? '').split(';').slice(1)) {
    const [name = '', paramValue] = param.split('=');
    params.set(name.trim().toLowerCase(), paramValue?.trim());
  }
  return { host: match[1] ?? '', port: match[2] ? Number(match[2]) : undefined, params };
}

/**
 * The request as the server transport hands it on (RFC 3261 section 18.2.1): its top Via gets `received` when its
 * sent-by is not the packet's source address, and an empty `rport` is filled with the source port, with
 * `received` then added in any case (RFC 3581 section 4). Responses are routed by those (see {@link responseDestination}).
 */
export function stampVia(text: string, source: UdpDestination): string {
  const lines = headerLines(text);
  const via = firstHeader(lines, 'via', 'v');
  if (!via) return text;
  const top = firstValue(via.value);
  const parsed = parseVia(top);
  if (!parsed) return text;
  const rport = parsed.params.has('rport') && parsed.params.get('rport') === undefined;
  let stamped = top;
  if (rport) stamped = stamped.replace(/;\s*rport(?=;|$)/i, `;rport=${source.port}`);
  if ((rport || parsed.host !== source.address) && !parsed.params.has('received')) stamped += `;received=${source.address}`;
  if (stamped === top) return text;
  const start = text.indexOf('\r\n') + 2;
  const lineStart = text.indexOf(lines[via.index] ?? '', start);
  const valueStart = text.indexOf(top, lineStart);
  return text.slice(0, valueStart) + stamped + text.slice(valueStart + top.length);
}

/**
 * Where a response goes over UDP (RFC 3261 section 18.2.2): to the top Via's `received` address, else its
 * sent-by host; to the port in `rport` (RFC 3581 section 4), else the sent-by port, else 5060.
 */
export function responseDestination(text: string): UdpDestination {
  const via = firstHeader(headerLines(text), 'via', 'v');
  const parsed = via ? parseVia(firstValue(via.value)) : undefined;
  if (!parsed) throw new Error('a SIP response without a Via cannot be sent');
  const address = parsed.params.get('received') ?? parsed.host;
  const rport = Number(parsed.params.get('rport'));
  return ipDestination(address, Number.isInteger(rport) && rport > 0 ? rport : (parsed.port ?? SIP_DEFAULT_PORT));
}

/**
 * Where a request goes (RFC 3261 sections 8.1.2 and 12.2.1.1): to the first Route's URI when there is a route set
 * (a loose router, `lr`, or a strict one: either way the next hop), else to the Request-URI.
 */
export function requestDestination(text: string): UdpDestination {
  const route = firstHeader(headerLines(text), 'route', 'route');
  const target = route ? /<([^>]+)>/.exec(firstValue(route.value))?.[1] : /^\S+\s+(\S+)\s+SIP\/2\.0/.exec(text)?.[1];
  const uri = target ? Grammar.URIParse(target) : undefined;
  if (!uri) throw new Error('a SIP request without a Request-URI or Route to send it to');
  return ipDestination(uri.host, uri.port ?? SIP_DEFAULT_PORT);
}

/** The destination, when its host is an IPv4 address: the simulator resolves no names. */
function ipDestination(address: string, port: number): UdpDestination {
  if (!IPV4.test(address)) throw new Error(`SIP over UDP goes to IP addresses only, not ${address}`);
  return { address, port };
}
