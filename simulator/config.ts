import { z } from 'zod';
import { ConfigError, parseEnvironment, port, portNumber, requestCount } from '../contract/environment.js';
import { API_KEY_FORMAT, type Quota } from './service/accounts.js';
import { EDGE_PROFILES, type EdgeProfile } from './sip/edge/edge-profile.js';
import { CODEC_PROFILES, type CodecProfile } from './media/codec-profile.js';
import { MEDIA_ADDRESS_MODES, type MediaAddressMode } from './media/media-address-mode.js';
import { selectMediaAddresses, type Interfaces } from './media/media-addresses.js';
import { QUEUE_ANSWER_TIMEOUT_MS } from './service/model.js';
import { DEFAULT_QUOTA } from './http/rate-limit.js';
import { DEFAULT_RECIPIENT_TIMINGS } from './service/recipients.js';

/**
 * The simulator's start-up configuration from the environment (docs/development.md, "Configuration"), parsed once with zod,
 * for `npm run simulator` and for `npm start` when it embeds the simulator. A bad value stops start-up with one
 * line naming the variable.
 */

/** The simulator's well-known development key: its fixed prefix plus 32 alphanumeric characters (spec 5.2). */
export const DEFAULT_SIM_API_KEY = 'vsk_SimulatorDefaultKey0000000000000';

/** A whole number of milliseconds of at least `least`. */
const wholeMs = (least: number) =>
  z.coerce.number({ error: 'must be a whole number of milliseconds' }).int('must be a whole number of milliseconds').min(least, 'must be a whole number of milliseconds');
const milliseconds = (fallback: number) => wholeMs(0).default(fallback);

/** Every environment variable the simulator reads, with its rule; {@link SIMULATOR_CONFIG_VARIABLES} names them. */
const variables = {
  SIM_PORT: port(8090),
  SIM_API_KEY: z.string().regex(API_KEY_FORMAT, 'must be "vsk_" followed by 32 letters or digits').default(DEFAULT_SIM_API_KEY),
  SIM_QUOTA_PER_MINUTE: requestCount().default(DEFAULT_QUOTA.perMinute),
  SIM_QUOTA_PER_HOUR: requestCount().default(DEFAULT_QUOTA.perHour),
  SIM_NO_ANSWER_MS: milliseconds(DEFAULT_RECIPIENT_TIMINGS.noAnswerMs),
  SIM_OUTCOME_UNKNOWN_MS: milliseconds(DEFAULT_RECIPIENT_TIMINGS.outcomeUnknownMs),
  SIM_QUEUE_ANSWER_TIMEOUT_MS: milliseconds(QUEUE_ANSWER_TIMEOUT_MS),
  SIM_MEDIA_TIMEOUT_MS: wholeMs(1).optional(),
  SIM_MEDIA_ADDRESSES: z.enum(MEDIA_ADDRESS_MODES, { error: `must be ${MEDIA_ADDRESS_MODES.map((mode) => `"${mode}"`).join(' or ')}` }).default(MEDIA_ADDRESS_MODES[0]),
  SIM_CODECS: z.enum(CODEC_PROFILES, { error: `must be ${CODEC_PROFILES.map((profile) => `"${profile}"`).join(' or ')}` }).default(CODEC_PROFILES[0]),
  SIM_SIP_UDP_PORT: portNumber().optional(),
  SIM_SIP_EDGE_URL: z.string().regex(/^wss?:\/\/[^\s/]+(\/\S*)?$/, 'must be a ws:// or wss:// URL').optional(),
  SIM_EDGE_PROFILE: z.enum(EDGE_PROFILES, { error: `must be ${EDGE_PROFILES.map((profile) => `"${profile}"`).join(', ')}` }).default(EDGE_PROFILES[0]),
};

/**
 * The names of every environment variable the simulator's configuration reads.
 *
 * @remarks
 * Whoever starts the app for a test (`startApp` of the repository's scripts) removes these, and the proxy's, from the environment
 * it passes on, so a variable exported in the caller's shell (`SIM_API_KEY` for `npm run simulator`, say)
 * cannot change what the test runs against.
 */
export const SIMULATOR_CONFIG_VARIABLES = Object.keys(variables) as ReadonlyArray<keyof typeof variables>;

/**
 * The quota of the key `npm start` runs its demo on, unless SIM_QUOTA_PER_* say otherwise: a key whose quota the
 * provider raised (spec 8 states a default quota, not a ceiling). The demo's walkthroughs (docs/demo.md) keep several
 * calls read once a second at once (an agent's call, a supervisor's monitor leg, a desk's caller), beside the
 * supervisor's list, the desks' re-reads and the recordings; the default serves one call at once.
 */
export const DEMO_KEY_QUOTA: Quota = { perMinute: 1000, perHour: 60_000 };

/** What the simulator starts with; it is a set of `startSimulator` options as it stands. */
export interface SimulatorConfig {
  port: number;
  apiKey: string;
  /** The per-key quota of every key without its own (spec 8 defaults: 100 a minute, 10,000 an hour). */
  quota: Quota;
  /** The started key's own quota, when it has one: the demo key's ({@link DEMO_KEY_QUOTA}). */
  keyQuota?: Quota;
  /** How long +12025550103 rings before `no_answer` (docs/simulator.md: 8 s); the e2e suite shortens it. */
  noAnswerMs: number;
  /** How long +12025550107 stays `outcome_unknown` (docs/simulator.md: 10 s); the e2e suite shortens it. */
  outcomeUnknownMs: number;
  /** How long a dequeued caller rings the agent before going back to the head (docs/simulator.md: 20 s); the e2e suite shortens it. */
  queueAnswerTimeoutMs: number;
  /**
   * How long a call whose page's SIP socket closed lives on without the page's audio before it ends
   * `connection_lost` (a real service's RTP timeout; unset, the simulator's own, docs/simulator.md); the e2e suite
   * lengthens it past its tests, which end such a call themselves.
   */
  mediaTimeoutMs?: number;
  /**
   * Where the calls' media gathers and whom it may pair with: `host` (the default) adds this machine's interface
   * addresses to 127.0.0.1, so a browser with default settings gets audio; `loopback`, 127.0.0.1 alone.
   */
  mediaAddresses: MediaAddressMode;
  /** The codecs each call offers the page: `opus` (the default), Opus first and PCMU second; `pcmu-only`. */
  codecs: CodecProfile;
  /** SIP over UDP on 127.0.0.1 at this port (0: a free one), for an edge that relays the pages' SIP; unset: none. */
  sipUdpPort?: number;
  /** The edge's WebSocket URL, given to the pages as their session's `websocketUrl`; unset: the simulator's `/sip`. */
  sipEdgeUrl?: string;
  /** The SIP edge the service speaks as (docs/simulator.md, "Edge profiles"): `kamailio` (the default) and others. */
  edgeProfile: EdgeProfile;
}

/**
 * Parses the environment; throws a ConfigError whose message is the one line to print.
 *
 * @param options - `demo`: the configuration of `npm start`'s embedded simulator, whose key gets
 * {@link DEMO_KEY_QUOTA} unless SIM_QUOTA_PER_MINUTE or SIM_QUOTA_PER_HOUR is set; every other key, and the
 * simulator run on its own, keep the spec's default
 */
export function parseSimulatorConfig(env: Record<string, string | undefined>, options: { demo?: boolean } = {}): SimulatorConfig {
  const e = parseEnvironment(z.object(variables), env);
  const quotaSet = env.SIM_QUOTA_PER_MINUTE !== undefined || env.SIM_QUOTA_PER_HOUR !== undefined;
  if (e.SIM_SIP_EDGE_URL !== undefined && e.SIM_SIP_UDP_PORT === undefined) {
    throw new ConfigError("configuration: SIM_SIP_EDGE_URL needs SIM_SIP_UDP_PORT, the simulator's SIP over UDP the edge relays to");
  }
  return {
    port: e.SIM_PORT,
    apiKey: e.SIM_API_KEY,
    quota: { perMinute: e.SIM_QUOTA_PER_MINUTE, perHour: e.SIM_QUOTA_PER_HOUR },
    ...(options.demo && !quotaSet ? { keyQuota: DEMO_KEY_QUOTA } : {}),
    noAnswerMs: e.SIM_NO_ANSWER_MS,
    outcomeUnknownMs: e.SIM_OUTCOME_UNKNOWN_MS,
    queueAnswerTimeoutMs: e.SIM_QUEUE_ANSWER_TIMEOUT_MS,
    ...(e.SIM_MEDIA_TIMEOUT_MS !== undefined ? { mediaTimeoutMs: e.SIM_MEDIA_TIMEOUT_MS } : {}),
    mediaAddresses: e.SIM_MEDIA_ADDRESSES,
    codecs: e.SIM_CODECS,
    ...(e.SIM_SIP_UDP_PORT !== undefined ? { sipUdpPort: e.SIM_SIP_UDP_PORT } : {}),
    ...(e.SIM_SIP_EDGE_URL !== undefined ? { sipEdgeUrl: e.SIM_SIP_EDGE_URL } : {}),
    edgeProfile: e.SIM_EDGE_PROFILE,
  };
}

/** The quota the started key is given: its own, else the simulator's default. */
export function startedKeyQuota(config: SimulatorConfig): Quota {
  return config.keyQuota ?? config.quota;
}

/** The start-up line on the started key's quota: what it is, and why when it is the demo key's. */
export function describeQuota(config: SimulatorConfig): string {
  const { perMinute, perHour } = startedKeyQuota(config);
  const figures = `${perMinute} requests a minute, ${perHour} an hour`;
  if (!config.keyQuota) return `simulator key quota: ${figures} (SIM_QUOTA_PER_MINUTE, SIM_QUOTA_PER_HOUR)`;
  return `simulator key quota: ${figures}, a demo key sized for the demo's walkthroughs (docs/demo.md) (agents, a supervisor listening in, recordings, the desk); the spec's default of ${DEFAULT_QUOTA.perMinute} a minute serves one call at once; SIM_QUOTA_PER_MINUTE and SIM_QUOTA_PER_HOUR set it`;
}

/**
 * Where the calls' media is offered, as start-up prints it: the addresses of this machine now (a call reads them
 * again when it starts), and what that means for a browser.
 */
export function describeMediaAddresses(config: Pick<SimulatorConfig, 'mediaAddresses'>, interfaces?: Interfaces): string {
  const { offered } = selectMediaAddresses(config.mediaAddresses, interfaces);
  if (config.mediaAddresses === 'loopback') return '127.0.0.1 only, for browsers started with loopback switches (SIM_MEDIA_ADDRESSES=loopback)';
  if (offered[0] !== '127.0.0.1') return offered.join(', ');
  return '127.0.0.1 only: this machine has no network address up, and a browser with default settings never pairs with loopback';
}

/** The key as start-up prints it, with a note when it is the default (SIM_API_KEY unset). */
export function describeApiKey(config: SimulatorConfig, env: Record<string, string | undefined>): string {
  return `${config.apiKey}${env.SIM_API_KEY ? '' : ' (the default; set SIM_API_KEY to change it)'}`;
}
