import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';

/**
 * A UDP relay in front of a server that holds every datagram `delayMs` each way: the server's answers arrive
 * as a distant server's would, with no kernel help (no netem here). Each client gets a socket of its own
 * toward the server, so the server sees one address per client, as it would through a NAT.
 */

/** A started relay: where clients send, and how to stop it. */
export interface DelayRelay {
  port: number;
  close(): Promise<void>;
}

/** Relays datagrams on `host` to `target`, each held `delayMs` on its way there and again on its way back. */
export async function startDelayRelay(host: string, target: { host: string; port: number }, delayMs: number): Promise<DelayRelay> {
  const front = createSocket('udp4');
  const clients = new Map<string, Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (send: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, delayMs);
    timers.add(timer);
  };
  const toward = (client: RemoteInfo): Socket => {
    const key = `${client.address}:${client.port}`;
    let back = clients.get(key);
    if (!back) {
      back = createSocket('udp4');
      back.on('message', (answer) => later(() => front.send(answer, client.port, client.address)));
      back.on('error', () => undefined);
      back.bind(0, host);
      clients.set(key, back);
    }
    return back;
  };
  front.on('message', (datagram, client) => {
    const back = toward(client);
    later(() => back.send(datagram, target.port, target.host));
  });
  front.on('error', () => undefined);
  await new Promise<void>((resolve) => front.bind(0, host, () => resolve()));
  return {
    port: front.address().port,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const back of clients.values()) back.close();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  };
}
