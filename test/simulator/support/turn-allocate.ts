import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';

/**
 * A TURN Allocate over UDP with long-term credentials (RFC 8656 section 7.1, RFC 8489 section 9.2), written
 * apart from the simulator so a test proves what a TURN server makes of the credentials a session carries:
 * the first request gets `401` with the realm and nonce, the second carries USERNAME, REALM, NONCE and
 * MESSAGE-INTEGRITY keyed by MD5(username:realm:password).
 */

const MAGIC = 0x2112a442;
const ALLOCATE = 0x0003;
const CREATE_PERMISSION = 0x0008;
const ATTR = { USERNAME: 0x0006, MESSAGE_INTEGRITY: 0x0008, ERROR_CODE: 0x0009, REALM: 0x0014, NONCE: 0x0015, REQUESTED_TRANSPORT: 0x0019, XOR_PEER_ADDRESS: 0x0012 } as const;

function attribute(type: number, value: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(type, 0);
  header.writeUInt16BE(value.length, 2);
  return Buffer.concat([header, value, Buffer.alloc((4 - (value.length % 4)) % 4)]);
}

function message(attributes: Buffer[], integrityKey?: Buffer, method = ALLOCATE): Buffer {
  const header = Buffer.alloc(20);
  header.writeUInt16BE(method, 0);
  header.writeUInt32BE(MAGIC, 4);
  randomBytes(12).copy(header, 8);
  let body = Buffer.concat(attributes);
  if (integrityKey) {
    // The length counts MESSAGE-INTEGRITY itself (24 bytes) when the HMAC is computed (RFC 8489 section 14.5).
    header.writeUInt16BE(body.length + 24, 2);
    body = Buffer.concat([body, attribute(ATTR.MESSAGE_INTEGRITY, createHmac('sha1', integrityKey).update(Buffer.concat([header, body])).digest())]);
  }
  header.writeUInt16BE(body.length, 2);
  return Buffer.concat([header, body]);
}

/** The answer's class (`success` or `error`), error code, and its attributes by type. */
function parse(answer: Buffer): { success: boolean; code: number | undefined; attributes: Map<number, Buffer> } {
  const attributes = new Map<number, Buffer>();
  for (let at = 20; at + 4 <= answer.length; ) {
    const type = answer.readUInt16BE(at);
    const length = answer.readUInt16BE(at + 2);
    attributes.set(type, answer.subarray(at + 4, at + 4 + length));
    at += 4 + length + ((4 - (length % 4)) % 4);
  }
  const error = attributes.get(ATTR.ERROR_CODE);
  return { success: (answer.readUInt16BE(0) & 0x0110) === 0x0100, code: error ? (error[2] ?? 0) * 100 + (error[3] ?? 0) : undefined, attributes };
}

/** XOR-PEER-ADDRESS of an IPv4 address, port 0 (RFC 8656 section 18.3, RFC 8489 section 14.2). */
function xorPeer(ip: string): Buffer {
  const value = Buffer.alloc(8);
  value.writeUInt16BE(0x0001, 0);
  value.writeUInt16BE(MAGIC >>> 16, 2);
  const octets = ip.split('.').map(Number);
  value.writeUInt32BE((((octets[0] ?? 0) << 24) | ((octets[1] ?? 0) << 16) | ((octets[2] ?? 0) << 8) | (octets[3] ?? 0)) ^ MAGIC, 4);
  return attribute(ATTR.XOR_PEER_ADDRESS, value);
}

/**
 * Allocates on the TURN server at `host:port` with `username`/`credential`; resolves with `'allocated'` or the
 * error code. Given `peers`, then asks a CreatePermission for each (RFC 8656 section 9) and resolves with each
 * one's `'permitted'` or error code instead (a refused peer is `403`).
 */
export async function allocate(host: string, port: number, username: string, credential: string): Promise<'allocated' | number>;
export async function allocate(host: string, port: number, username: string, credential: string, peers: readonly string[]): Promise<Array<'permitted' | number>>;
export async function allocate(host: string, port: number, username: string, credential: string, peers?: readonly string[]): Promise<'allocated' | number | Array<'permitted' | number>> {
  const socket = createSocket('udp4');
  const ask = (request: Buffer) =>
    new Promise<ReturnType<typeof parse>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no TURN answer')), 2000);
      socket.once('message', (answer) => {
        clearTimeout(timer);
        resolve(parse(answer));
      });
      socket.send(request, port, host);
    });
  try {
    const udp = attribute(ATTR.REQUESTED_TRANSPORT, Buffer.from([17, 0, 0, 0]));
    const challenge = await ask(message([udp]));
    const realm = challenge.attributes.get(ATTR.REALM) ?? Buffer.alloc(0);
    const nonce = challenge.attributes.get(ATTR.NONCE) ?? Buffer.alloc(0);
    const key = createHash('md5').update(`${username}:${realm.toString()}:${credential}`).digest();
    const credentials = [attribute(ATTR.USERNAME, Buffer.from(username)), attribute(ATTR.REALM, realm), attribute(ATTR.NONCE, nonce)];
    const answer = await ask(message([udp, ...credentials], key));
    if (!peers) return answer.success ? 'allocated' : (answer.code ?? 0);
    const permissions: Array<'permitted' | number> = [];
    for (const peer of peers) {
      const permission = await ask(message([xorPeer(peer), ...credentials], key, CREATE_PERMISSION));
      permissions.push(permission.success ? 'permitted' : (permission.code ?? 0));
    }
    return permissions;
  } finally {
    socket.close();
  }
}
