/**
 * `@voice-browser/simulator`: a local voice service for development and tests. The REST API the proxy calls,
 * SIP over WebSocket that the page registers with, real WebRTC audio (a tone, then the page's own voice
 * echoed), test numbers that ring, answer, are busy or fail, scripted faults, and a control API to look
 * inside. It listens on loopback only; its calls' audio is offered on this machine's own addresses
 * (`mediaAddresses`).
 *
 * @packageDocumentation
 * @module @voice-browser/simulator
 */

import { API_KEY_FORMAT } from './service/accounts.js';
import { DEFAULT_SIM_API_KEY } from './config.js';
import type { SimulatorEdgeProfile } from './http/control-client.js';
import { EDGE_PROFILES, isEdgeProfile } from './sip/edge/edge-profile.js';
import { CODEC_PROFILES, type CodecProfile } from './media/codec-profile.js';
import type { MediaAddressMode } from './media/media-address-mode.js';
import { startSimulator as startService } from './server.js';

export { createSimulatorControl, SimulatorControlError } from './http/control-client.js';
export type { MediaAddressMode } from './media/media-address-mode.js';
export type { CodecProfile } from './media/codec-profile.js';
export type { Impairment, MediaDirection } from './media/impairment.js';
export type { SimulatorEdge, SimulatorEdgeInput, SimulatorEdgeProfile } from './http/control-client.js';
export type { NetworkProfile, SessionIce, SimulatorNetwork, SimulatorNetworkInput } from './http/control-client.js';
export { NETWORK_PROFILES } from './turn/network-profile.js';
export type { InboundCallRecord, RegistrationRecord, SimulatedCall, SimulatedCallRecord, SimulatedMedia, SimulatorControl, SimulatorFault } from './http/control-client.js';

/** The development key the simulator takes when none is given: `vsk_` and 32 letters or digits, as a real key. */
export const DEFAULT_API_KEY: string = DEFAULT_SIM_API_KEY;

/** How to start the simulator. Every time is in milliseconds. */
export interface SimulatorOptions {
  /** The key its REST API takes (default {@link DEFAULT_API_KEY}): `vsk_` and 32 letters or digits. */
  apiKey?: string;
  /** The port of REST, SIP and control alike; default 0, a free one. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** The key's quota; default 100 requests a minute and 10,000 an hour, as the real service. */
  quota?: { perMinute?: number; perHour?: number };
  /** How long a browser session lives; default 3600 seconds. */
  sessionTtlSeconds?: number;
  /** How long `+12025550103` rings before it ends `no_answer`; default 8000. */
  noAnswerMs?: number;
  /** How long any number outside the test numbers rings before it answers; default 1000. */
  ringMs?: number;
  /** How long `+12025550101` rings before it answers; default 3000. */
  slowAnswerMs?: number;
  /** How long `+12025550106` talks before the recipient hangs up; default 5000. */
  recipientHangupMs?: number;
  /** How long `+12025550107` stays `outcome_unknown` before it ends; default 10000. */
  outcomeUnknownMs?: number;
  /** How long the page has to answer the service's INVITE before the call fails `agent_no_answer`; default 30000. */
  agentAnswerTimeoutMs?: number;
  /** How long the tone plays after the call's audio connects, before the echo; default 1000. */
  toneMs?: number;
  /** How long a dequeued caller rings the agent's page before going back to the head of its queue; default 20000. */
  queueAnswerTimeoutMs?: number;
  /**
   * Where the calls' audio is offered and whom it may pair with. `'host'` (the default): this machine's own
   * network addresses (127.0.0.1 when none is up), which a browser with default settings pairs with. `'loopback'`: 127.0.0.1
   * alone, for browsers started with loopback switches (`chromiumLaunchOptions` and `firefoxLaunchOptions` of
   * `@voice-browser/simulator/playwright`). Either way it pairs with, answers and sends to no address but this
   * machine's.
   */
  mediaAddresses?: MediaAddressMode;
  /**
   * The codecs each call's audio offers the page: `'opus'` (the default), Opus (48 kHz, in-band FEC, mono, 20 ms)
   * first and PCMU second, as hosted voice services offer browsers; `'pcmu-only'`, G.711 PCMU alone.
   */
  codecs?: CodecProfile;
  /**
   * The SIP edge it speaks as, at start and after every `reset()` (the control API's `setEdge` changes it for what
   * comes next): `'kamailio'` (the default: answers CRLF keep-alives, confirms outbound), `'no-crlf-pong'`
   * (OpenSIPS, Asterisk, FreeSWITCH: neither), `'asterisk'` (100rel required, session-timer refreshes, SHA-256 and
   * MD5 challenges, no pong) or `'carrier-sbc'` (`Min-Expires: 3600`, one-use nonces, `Expires` only as a header,
   * INVITEs with `Expires`, multipart or offerless, `503` to every other refresh). docs/simulator.md has the whole list.
   */
  edgeProfile?: SimulatorEdgeProfile;
  /**
   * Where Debian's coturn (`turnserver`) is; default `/usr/bin/turnserver`. It starts the first time the control
   * API's `setNetwork` asks for a profile that uses TURN (docs/network.md), and stops with the simulator.
   */
  turnserverPath?: string;
}

/** A running simulator. */
export interface Simulator {
  /** Its root, e.g. `http://127.0.0.1:8090`; the control API is under `/__sim/`. */
  url: string;
  /** What the proxy takes as the service's base URL (`VOICE_BASE_URL`): `{url}/api`. */
  baseUrl: string;
  /** The SIP WebSocket the page registers with, e.g. `ws://127.0.0.1:8090/sip`; the page learns it from its session. */
  sipUrl: string;
  /** The port it listens on: the one given, or the free one it took for port 0. */
  port: number;
  /** The key its REST API takes. */
  apiKey: string;
  /** Ends every call and session, closes every socket and stops listening. */
  close(): Promise<void>;
}

/** Options {@link startSimulator} refuses, with `code` `invalid_argument`; nothing was started. */
export class SimulatorOptionsError extends Error {
  override readonly name = 'SimulatorOptionsError';
  readonly code = 'invalid_argument';
}

/**
 * Starts the simulator and resolves once it listens; rejects with a {@link SimulatorOptionsError} for a key
 * that is not a voice key's shape, as the real service would never issue it, or an `edgeProfile` it does not know.
 *
 * @example
 * ```ts
 * import { startSimulator } from '@voice-browser/simulator';
 *
 * const simulator = await startSimulator({ noAnswerMs: 2000 });
 * const proxy = createVoiceProxy({ baseUrl: simulator.baseUrl, apiKey: simulator.apiKey, authenticate });
 * // ...
 * await simulator.close();
 * ```
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  if (!API_KEY_FORMAT.test(apiKey)) throw new SimulatorOptionsError('startSimulator: apiKey must be "vsk_" followed by 32 letters or digits');
  if (options.codecs !== undefined && !CODEC_PROFILES.includes(options.codecs)) {
    throw new SimulatorOptionsError(`startSimulator: codecs must be ${CODEC_PROFILES.map((profile) => `"${profile}"`).join(' or ')}`);
  }
  if (options.edgeProfile !== undefined && !isEdgeProfile(options.edgeProfile)) {
    throw new SimulatorOptionsError(`startSimulator: edgeProfile must be ${EDGE_PROFILES.map((profile) => `"${profile}"`).join(', ')}`);
  }
  const running = await startService({ ...options, apiKey, port: options.port ?? 0 });
  return {
    url: running.url,
    baseUrl: running.baseUrl,
    sipUrl: `${running.url.replace(/^http/, 'ws')}/sip`,
    port: running.port,
    apiKey,
    close: () => running.close(),
  };
}
