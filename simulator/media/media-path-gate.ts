import type { RTCPeerConnection } from 'werift';
import { createImpairmentStage, type Impairment, type ImpairmentStage, type MediaDirection } from './impairment.js';

/**
 * The network between the simulator and a page, made in user space on werift's UDP sockets (the ICE
 * connection's private `protocols`, as `disableStun` works on its STUN server): the `media-blackhole` fault drops
 * every datagram both ways for a while, and an impairment ({@link Impairment}) loses, delays, reorders and
 * throttles the call's RTP and RTCP in one direction. A call whose connection has no socket yet is left as it is.
 */

/** The time and the timers a gate runs on. */
export interface GateClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
}

const realClock: GateClock = { now: () => Date.now(), setTimeout: (run, ms) => setTimeout(run, ms) };

/** werift's UDP socket of one ICE candidate, as far as a gate touches it. */
interface IceUdp {
  send: (data: Buffer, addr?: unknown) => Promise<void>;
  onData: (data: Buffer, addr: unknown) => void;
}

/** One socket's gate: when its blackhole ends (epoch ms), and each direction's impairment. */
interface Gate {
  until: number;
  stages: Partial<Record<MediaDirection, ImpairmentStage>>;
}

/** A socket is gated once; the gate's state changes, its wrapping stays. */
const gates = new WeakMap<IceUdp, Gate>();

/**
 * RTP or RTCP (SRTP and SRTCP on the wire): a first byte of 128 to 191 (RFC 7983 section 7). STUN and DTLS are
 * left to the blackhole alone, so that an impaired call's connectivity checks and handshakes still run and
 * what is measured is the audio's path.
 */
const isMedia = (data: Buffer): boolean => data.length > 0 && data[0]! >= 128 && data[0]! <= 191;

/** `deliver` now, or when the stage says the datagram arrives; nothing when it is lost. */
function pass(stage: ImpairmentStage | undefined, data: Buffer, clock: GateClock, deliver: () => void): void {
  if (!stage || !isMedia(data)) return deliver();
  const now = clock.now();
  const fate = stage.admit(data.length, now);
  if (fate.lost) return;
  if (fate.at <= now) deliver();
  else clock.setTimeout(deliver, fate.at - now);
}

/** Puts a gate on `udp`'s sends and receipts. */
function gate(udp: IceUdp, clock: GateClock): Gate {
  const known = gates.get(udp);
  if (known) return known;
  const state: Gate = { until: 0, stages: {} };
  const send = udp.send;
  const receive = udp.onData;
  udp.send = (data, addr) => {
    if (clock.now() < state.until) return Promise.resolve();
    const stage = state.stages['to-browser'];
    if (!stage || !isMedia(data)) return send.call(udp, data, addr);
    // An impaired datagram is handed to the socket later, or never: its sender does not wait for it.
    pass(stage, data, clock, () => void send.call(udp, data, addr).catch(() => undefined));
    return Promise.resolve();
  };
  udp.onData = (data, addr) => {
    if (clock.now() < state.until) return;
    pass(state.stages['from-browser'], data, clock, () => receive.call(udp, data, addr));
  };
  gates.set(udp, state);
  return state;
}

/** The UDP sockets of `pc`'s ICE transports. */
function socketsOf(pc: RTCPeerConnection): IceUdp[] {
  return pc.iceTransports.flatMap((transport) => {
    const protocols = (transport.connection as unknown as { protocols?: Array<{ transport?: IceUdp }> }).protocols ?? [];
    return protocols.flatMap(({ transport: udp }) => (udp ? [udp] : []));
  });
}

/**
 * The `media-blackhole` fault: drops every datagram of `pc`'s ICE (RTP, RTCP, DTLS and the STUN checks) both
 * ways until `until`, as a network path that lost everything for a while.
 */
export function blackholeUntil(pc: RTCPeerConnection, until: number, clock: GateClock = realClock): void {
  for (const udp of socketsOf(pc)) {
    const state = gate(udp, clock);
    state.until = Math.max(state.until, until);
  }
}

/**
 * Impairs `direction` of `pc`'s media from now on as `impairment` says (replacing what impaired it before), or
 * lifts it (`undefined`). Each socket draws its losses from `seed`, so a run can be replayed.
 */
export function impairMedia(pc: RTCPeerConnection, direction: MediaDirection, impairment: Impairment | undefined, seed: number, clock: GateClock = realClock): void {
  for (const udp of socketsOf(pc)) {
    const state = gate(udp, clock);
    if (impairment) state.stages[direction] = createImpairmentStage(impairment, seed);
    else delete state.stages[direction];
  }
}
