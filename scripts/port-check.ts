import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Whether the ports `npm start` will listen on are free, asked before it builds, so a taken port is said at once
 * rather than after the build; and, where the system tells, which process holds one.
 */

/** A port start-up will listen on, and the variable that sets it. */
export interface WantedPort {
  variable: string;
  host: string;
  port: number;
}

/** A process that listens on a port. */
export interface PortHolder {
  pid: number;
  /** Its command line, as `ps` shows it. */
  command: string;
}

/**
 * Resolves with the error that listening on `host:port` meets (`EADDRINUSE`, `EACCES`, ...), or undefined when
 * the port is free. Port 0 (any free port) is always free.
 */
export async function listenError(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  if (port === 0) return undefined;
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/**
 * The process listening on TCP `port`, from Linux's /proc: the listening socket's inode in /proc/net/tcp{,6},
 * then the process with a descriptor on that socket. Undefined where there is no /proc (macOS), or when the
 * holder belongs to another user and its descriptors cannot be read.
 */
export function portHolder(port: number, proc = '/proc'): PortHolder | undefined {
  const inodes = new Set<string>();
  for (const table of ['net/tcp', 'net/tcp6']) {
    for (const line of readOrEmpty(`${proc}/${table}`).split('\n').slice(1)) {
      // local_address is ADDRESS:PORT in hex, state 0A is LISTEN, the inode is the tenth column.
      const fields = line.trim().split(/\s+/);
      const local = fields[1]?.split(':')[1];
      if (local && parseInt(local, 16) === port && fields[3] === '0A' && fields[9] && fields[9] !== '0') inodes.add(`socket:[${fields[9]}]`);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of listOrEmpty(proc).filter((name) => /^\d+$/.test(name))) {
    const holds = listOrEmpty(`${proc}/${pid}/fd`).some((fd) => inodes.has(linkOrEmpty(`${proc}/${pid}/fd/${fd}`)));
    if (holds) return { pid: Number(pid), command: readOrEmpty(`${proc}/${pid}/cmdline`).split('\0').filter(Boolean).join(' ') };
  }
  return undefined;
}

/**
 * The one line start-up stops with when `wanted` cannot be listened on: the port, what holds it when known, and
 * the variable to change.
 */
export function portInUseLine(wanted: WantedPort, error: NodeJS.ErrnoException, holder: PortHolder | undefined): string {
  const where = `port ${wanted.port} on ${wanted.host} (${wanted.variable})`;
  const change = `set ${wanted.variable} to a free port, e.g. ${wanted.variable}=${wanted.port + 1} npm start`;
  if (error.code !== 'EADDRINUSE') return `start-up: cannot listen on ${where}: ${error.code ?? error.message}; ${change}`;
  const by = holder ? ` by pid ${holder.pid} (${shorten(holder.command)})` : '';
  return `start-up: ${where} is taken${by}; stop that, or ${change}`;
}

/** Checks every port in `wanted` before anything is built; resolves with the line to stop with, if any. */
export async function firstPortProblem(wanted: readonly WantedPort[]): Promise<string | undefined> {
  const given = wanted.filter(({ port }) => port !== 0);
  const same = given.find((one, index) => given.findIndex((other) => other.port === one.port) !== index);
  if (same) return `start-up: ${given.filter(({ port }) => port === same.port).map(({ variable }) => variable).join(' and ')} are both ${same.port}; set one to another port`;
  for (const one of given) {
    const error = await listenError(one.host, one.port);
    if (error) return portInUseLine(one, error, error.code === 'EADDRINUSE' ? portHolder(one.port) : undefined);
  }
  return undefined;
}

/**
 * A command line as a person knows it: without the loader options a runner such as tsx adds to Node's, and
 * with its end (the script and its flags) kept when it is long.
 */
function shorten(command: string): string {
  const short = command.replace(/ (?:--require|--import|-r) \S+/g, '');
  return short.length > 100 ? `…${short.slice(-99)}` : short;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function listOrEmpty(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function linkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
