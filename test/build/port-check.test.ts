import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstPortProblem, listenError, portHolder, portInUseLine } from '../../scripts/port-check.js';

/** `npm start`'s check of its ports before it builds (scripts/port-check.ts). */

const servers: Server[] = [];
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A port this test holds on 127.0.0.1. */
async function takenPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A /proc with one process (pid 4242, `command`) listening on `port` through socket inode 777. */
function fakeProc(port: number, command: string[]): string {
  const proc = mkdtempSync(join(tmpdir(), 'fake-proc-'));
  folders.push(proc);
  mkdirSync(join(proc, 'net'));
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
  // A connection to the port (state 01) on another inode, then the listening socket (state 0A).
  const rows = [
    `   0: 0100007F:9C40 0100007F:${hexPort} 01 00000000:00000000 00:00000000 00000000     0        0 555 1`,
    `   1: 0100007F:${hexPort} 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1`,
  ];
  writeFileSync(join(proc, 'net/tcp'), `${header}\n${rows.join('\n')}\n`);
  writeFileSync(join(proc, 'net/tcp6'), `${header}\n`);
  for (const [pid, inode] of [['17', '555'], ['4242', '777']] as const) {
    mkdirSync(join(proc, pid, 'fd'), { recursive: true });
    symlinkSync(`socket:[${inode}]`, join(proc, pid, 'fd', '3'));
    writeFileSync(join(proc, pid, 'cmdline'), pid === '4242' ? `${command.join('\0')}\0` : 'curl\0');
  }
  return proc;
}

describe('listenError', () => {
  it('is EADDRINUSE on a port something listens on, and nothing on a free one or port 0', async () => {
    const port = await takenPort();
    expect((await listenError('127.0.0.1', port))?.code).toBe('EADDRINUSE');
    expect(await listenError('127.0.0.1', 0)).toBeUndefined();
    const server = servers.pop();
    await new Promise((resolve) => server?.close(resolve));
    expect(await listenError('127.0.0.1', port)).toBeUndefined();
  });
});

describe('portHolder', () => {
  it('names the process whose descriptor is the listening socket, not one connected to the port', () => {
    const proc = fakeProc(8090, ['node', '/usr/bin/voice-browser-simulator', '--port', '8090']);
    expect(portHolder(8090, proc)).toEqual({ pid: 4242, command: 'node /usr/bin/voice-browser-simulator --port 8090' });
  });

  it('is undefined for a port nothing listens on, or where there is no /proc', () => {
    expect(portHolder(8091, fakeProc(8090, ['node']))).toBeUndefined();
    expect(portHolder(8090, join(tmpdir(), 'no-such-proc-here'))).toBeUndefined();
  });
});

describe('portInUseLine', () => {
  const wanted = { variable: 'SIM_PORT', host: '127.0.0.1', port: 8090 };
  const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });

  it('names the port, its variable, the holder when known, and the variable to change', () => {
    expect(portInUseLine(wanted, inUse, { pid: 4242, command: 'node voice-browser-simulator --port 8090' })).toBe(
      'start-up: port 8090 on 127.0.0.1 (SIM_PORT) is taken by pid 4242 (node voice-browser-simulator --port 8090); stop that, or set SIM_PORT to a free port, e.g. SIM_PORT=8091 npm start',
    );
    expect(portInUseLine(wanted, inUse, undefined)).toBe(
      'start-up: port 8090 on 127.0.0.1 (SIM_PORT) is taken; stop that, or set SIM_PORT to a free port, e.g. SIM_PORT=8091 npm start',
    );
  });

  it('says another refusal by its code', () => {
    const denied = Object.assign(new Error('listen EACCES'), { code: 'EACCES' });
    expect(portInUseLine({ variable: 'PORT', host: '127.0.0.1', port: 80 }, denied, undefined)).toBe(
      'start-up: cannot listen on port 80 on 127.0.0.1 (PORT): EACCES; set PORT to a free port, e.g. PORT=81 npm start',
    );
  });
});

describe('firstPortProblem', () => {
  it('stops on the first taken port with its variable, and passes free ports and port 0', async () => {
    const port = await takenPort();
    const line = await firstPortProblem([
      { variable: 'PORT', host: '127.0.0.1', port: 0 },
      { variable: 'SIM_PORT', host: '127.0.0.1', port },
    ]);
    expect(line).toMatch(new RegExp(`^start-up: port ${port} on 127\\.0\\.0\\.1 \\(SIM_PORT\\) is taken.*; stop that, or set SIM_PORT to a free port, e\\.g\\. SIM_PORT=${port + 1} npm start$`));
    expect(await firstPortProblem([{ variable: 'PORT', host: '127.0.0.1', port: 0 }, { variable: 'SIM_PORT', host: '127.0.0.1', port: 0 }])).toBeUndefined();
  });

  it('refuses the same port for both before trying either', async () => {
    expect(await firstPortProblem([{ variable: 'PORT', host: '127.0.0.1', port: 8090 }, { variable: 'SIM_PORT', host: '127.0.0.1', port: 8090 }])).toBe(
      'start-up: PORT and SIM_PORT are both 8090; set one to another port',
    );
  });
});
