import { describe, expect, it } from 'vitest';
import { CipherContext, DtlsClient, DtlsServer, HashAlgorithm, NamedCurveAlgorithm, SignatureAlgorithm, type Transport } from 'werift';

/**
 * werift's DTLS, which the simulator's media and the tests' agents speak: a handshake whose HelloVerifyRequest
 * comes twice. On a busy machine the client retransmits its ClientHello before the server's answer to the first
 * one is read, so the server answers both (RFC 6347 section 4.2.1, with the same cookie); the client takes the
 * first and must drop the second as the duplicate it is (section 4.2.4), not fail the handshake over it.
 */

/**
 * Two ends of a datagram path, as werift's DTLS uses them: each gets what the other sends, on a later turn of the
 * loop; told to, the path hands `a` the first datagram from `b` twice.
 */
function datagramPipe(): { a: Transport; b: Transport; duplicateFirstToA(): void } {
  let duplicate = false;
  let first = true;
  const deliver = (to: Transport, data: Buffer) => setImmediate(() => to.onData(data, ['127.0.0.1', 0]));
  const a = socket((data) => deliver(b, data));
  const b = socket((data) => {
    deliver(a, data);
    if (first && duplicate) deliver(a, data);
    first = false;
  });
  return { a, b, duplicateFirstToA: () => (duplicate = true) };
}

function socket(send: (data: Buffer) => void): Transport {
  return {
    type: 'udp',
    address: { port: 0, address: '127.0.0.1', family: 'IPv4' },
    closed: false,
    onData: () => undefined,
    send: async (data) => send(data),
    close: async () => undefined,
  };
}

/** Resolves once `side` connects; rejects with its error if it fails first. */
const connected = (side: DtlsClient | DtlsServer) =>
  new Promise<void>((resolve, reject) => {
    side.onConnect.once(() => resolve());
    side.onError.once((error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
  });

describe("werift's DTLS client", () => {
  it('RFC 6347 section 4.2.4: connects when the HelloVerifyRequest arrives twice, taking the first and dropping the repeat', async () => {
    const { certPem, keyPem, signatureHash } = await CipherContext.createSelfSignedCertificateWithKey({ signature: SignatureAlgorithm.ecdsa_3, hash: HashAlgorithm.sha256_4 }, NamedCurveAlgorithm.secp256r1_23);
    const pipe = datagramPipe();
    pipe.duplicateFirstToA();
    const client = new DtlsClient({ transport: pipe.a, cert: certPem, key: keyPem, signatureHash, extendedMasterSecret: true });
    const server = new DtlsServer({ transport: pipe.b, cert: certPem, key: keyPem, signatureHash, extendedMasterSecret: true });
    const both = Promise.all([connected(client), connected(server)]);
    void client.connect();
    await expect(both).resolves.toEqual([undefined, undefined]);
    client.close();
    server.close();
  });
});
