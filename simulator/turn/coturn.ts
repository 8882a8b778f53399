import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A private TURN server for the simulator's sessions: Debian's coturn (`turnserver`), on free ports of the
 * listening addresses, TURN over UDP and TCP on one port and over TLS on another with a self-signed certificate
 * made at start, the TURN REST API's shared secret (draft-uberti-behave-turn-rest) in its private configuration
 * file, relaying over UDP to nothing but the addresses it is told, logging to its stdout, stopped by its own PID
 * and killed by the kernel when the process that started it dies.
 */

/** Where coturn is looked for unless told: Debian's package `coturn`. */
export const TURNSERVER_PATH = '/usr/bin/turnserver';

/** What to start coturn with. */
export interface CoturnOptions {
  /** The `turnserver` binary; default {@link TURNSERVER_PATH}. */
  binary?: string;
  /** Addresses it listens and relays on; the first is where the sessions' URLs point. Default 127.0.0.1. */
  listeningIps?: readonly string[];
  /** The only peers it relays to (single addresses or `a-b` ranges); default the listening addresses. */
  allowedPeers?: readonly string[];
  /** Each line coturn logs; default none kept but the last few, for a failed start's error. */
  onLog?: (line: string) => void;
}

/** A started coturn. */
export interface RunningCoturn {
  /** The address the sessions' URLs name. */
  host: string;
  /** TURN over UDP and TCP. */
  port: number;
  /** TURN over TLS. */
  tlsPort: number;
  /** The TURN REST API's shared secret. */
  secret: string;
  /** Its process, for a check that it stopped. */
  pid: number;
  realm: string;
  /** The certificate its TLS listener presents (PEM), for a browser told to trust it. */
  certificatePem: string;
  /** Stops it by its PID and removes its files. */
  stop(): Promise<void>;
}

/** No `turnserver` where it was looked for: the simulator's TURN-using profiles cannot run. */
export class CoturnMissingError extends Error {
  readonly code = 'turn_unavailable';
}

const run = promisify(execFile);

/** A port that was free a moment ago on `host`, for TCP (and, being a TURN port, tried for UDP by coturn itself). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A self-signed certificate for `host` (an IP address: TLS clients check the subjectAltName). */
async function makeCertificate(dir: string, host: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${host}`, '-addext', `subjectAltName=IP:${host}`]);
  return { cert, key };
}

/** A STUN Binding request (RFC 8489 section 6) is answered: the UDP listener is up. */
function stunAnswered(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const request = Buffer.concat([Buffer.from([0, 1, 0, 0, 0x21, 0x12, 0xa4, 0x42]), randomBytes(12)]);
    const timer = setTimeout(() => done(false), 200);
    const done = (answered: boolean) => {
      clearTimeout(timer);
      socket.close();
      resolve(answered);
    };
    socket.once('message', () => done(true));
    socket.once('error', () => done(false));
    socket.send(request, port, host);
  });
}

function argumentsFor(options: { ips: readonly string[]; peers: readonly string[]; port: number; tlsPort: number; realm: string; dir: string; cert: string; key: string }): string[] {
  return [
    // Its own configuration file (the shared secret alone): nothing of the machine's /etc/turnserver.conf applies.
    ...['-c', join(options.dir, 'turnserver.conf')],
    ...options.ips.flatMap((ip) => ['--listening-ip', ip]),
    ...['--listening-port', String(options.port), '--tls-listening-port', String(options.tlsPort)],
    ...['--cert', options.cert, '--pkey', options.key, '--no-dtls', '--no-tlsv1', '--no-tlsv1_1'],
    ...['--realm', options.realm, '--fingerprint'],
    // Browsers relay UDP alone (RFC 8656); TURN's TCP relaying (RFC 6062) is for no one here.
    '--no-tcp-relay',
    // Relays to the listed peers alone: every other address is denied, multicast too (coturn's allow list wins).
    ...['--allow-loopback-peers', '--no-multicast-peers', '--denied-peer-ip=0.0.0.0-255.255.255.255', '--denied-peer-ip=::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ...options.peers.map((peer) => `--allowed-peer-ip=${peer}`),
    ...['--no-cli', '--log-file', 'stdout', '--simple-log', '--userdb', join(options.dir, 'turndb'), '--pidfile', join(options.dir, 'turnserver.pid')],
  ];
}

function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  return async () => {
    // No PID: the spawn itself failed, and there is nothing to signal (PID 0 would be this process group).
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      process.kill(child.pid, 'SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
}

/**
 * Waits until coturn answers STUN on `port`, or throws with its last lines once it exited, could not be spawned
 * or a few seconds passed.
 */
async function whenReady(child: ChildProcess, host: string, port: number, lastLines: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  while (!(await stunAnswered(host, port))) {
    if (spawnError) throw new Error(`coturn could not be spawned: ${spawnError.message}`, { cause: spawnError });
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      throw new Error(`coturn did not start on ${host}:${port}: ${lastLines()}`);
    }
  }
}

/** Starts coturn on free ports; throws {@link CoturnMissingError} when there is no `turnserver`. */
export async function startCoturn(options: CoturnOptions = {}): Promise<RunningCoturn> {
  const binary = options.binary ?? TURNSERVER_PATH;
  if (!existsSync(binary)) throw new CoturnMissingError(`no TURN server at ${binary}: install Debian's coturn (apt-get install -y coturn)`);
  const ips = options.listeningIps?.length ? options.listeningIps : ['127.0.0.1'];
  const host = ips[0] ?? '127.0.0.1';
  const dir = await mkdtemp(join(tmpdir(), 'sim-coturn-'));
  const { cert, key } = await makeCertificate(dir, host);
  const secret = randomBytes(24).toString('base64url');
  // In a file only this user reads (its directory is too), not on the command line every local user reads.
  await writeFile(join(dir, 'turnserver.conf'), `use-auth-secret\nstatic-auth-secret=${secret}\n`, { mode: 0o600 });
  const [port, tlsPort] = [await freePort(host), await freePort(host)];
  const realm = 'simulator.invalid';
  const args = argumentsFor({ ips, peers: options.allowedPeers ?? ips, port, tlsPort, realm, dir, cert, key });
  // setpriv: the kernel ends coturn when this process dies unhandled (PR_SET_PDEATHSIG survives the execs).
  // stdbuf: coturn writes its log with stdio's buffering, which a pipe holds back until exit.
  const child = spawn('setpriv', ['--pdeathsig', 'SIGTERM', '--', 'stdbuf', '-oL', binary, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  // A spawn that fails after the start (none known) would otherwise be an unhandled 'error' that ends the simulator.
  child.on('error', (error) => options.onLog?.(`coturn: ${error.message}`));
  let tail: string[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    for (const line of chunk.split('\n').filter(Boolean)) {
      options.onLog?.(line);
      tail = [...tail.slice(-9), line];
    }
  });
  // coturn probes for SCTP, which this kernel lacks ("Protocol not supported"): nothing to tell.
  child.stderr?.resume();
  const stop = stopper(child, dir);
  try {
    await whenReady(child, host, port, () => tail.join(' | '));
  } catch (error) {
    await stop();
    throw error;
  }
  return { host, port, tlsPort, secret, pid: child.pid ?? 0, realm, certificatePem: await readFile(cert, 'utf8'), stop };
}
