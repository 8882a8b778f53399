import dgram from 'node:dgram';

/**
 * Records the address of every UDP bind and send in this process (werift's ICE uses node:dgram), so a test
 * can prove nothing left 127.0.0.1.
 */
export interface UdpWatch {
  bound: string[];
  sentTo: string[];
  stop(): void;
}

export function watchUdp(): UdpWatch {
  const watch: UdpWatch = { bound: [], sentTo: [], stop: () => undefined };
  const send = dgram.Socket.prototype.send;
  const bind = dgram.Socket.prototype.bind;
  dgram.Socket.prototype.send = function (this: dgram.Socket, ...args: unknown[]) {
    // werift calls send(data, port, address[, callback]).
    watch.sentTo.push(typeof args[2] === 'string' ? args[2] : `?${String(args[2])}`);
    return Reflect.apply(send, this, args);
  } as typeof send;
  dgram.Socket.prototype.bind = function (this: dgram.Socket, ...args: unknown[]) {
    const [first, second] = args;
    const address = typeof first === 'object' && first !== null && 'address' in first ? first.address : second;
    watch.bound.push(typeof address === 'string' ? address : '<any>');
    return Reflect.apply(bind, this, args);
  } as typeof bind;
  watch.stop = () => {
    dgram.Socket.prototype.send = send;
    dgram.Socket.prototype.bind = bind;
  };
  return watch;
}
