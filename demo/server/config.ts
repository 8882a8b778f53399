import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { parseEnvironment, port, requestCount } from '../../contract/environment.js';

/**
 * The proxy's start-up configuration from the environment (DESIGN.md, "Environment"), parsed once with zod.
 * A bad value stops start-up with one line naming the variable. The embedded simulator reads its own
 * (simulator/config.ts), and only when `npm start` runs it.
 */

/** Every environment variable the configuration reads, with its rule; {@link CONFIG_VARIABLES} names them. */
const variables = {
  PORT: port(8080),
  HOST: z
    .string()
    .regex(/^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/, 'must be an address to listen on, such as 127.0.0.1, 0.0.0.0 or ::')
    .default('127.0.0.1'),
  VOICE_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://voice.example.com/api' }).optional(),
  VOICE_API_KEY: z.string().regex(/^\S{8,}$/, 'must be the API key (at least 8 characters, no spaces)').optional(),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  VOICE_USER_RATE_PER_MINUTE: requestCount().optional(),
  VOICE_USER_RATE_PER_HOUR: requestCount().optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  QUEUE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent'], { error: 'must be one of debug, info, warn, error, silent' }).default('info'),
};

/**
 * The names of every environment variable the proxy's configuration reads.
 *
 * @remarks
 * Whoever starts the app for a test (scripts/start-app.ts) removes these, and the simulator's, from the
 * environment it passes on, so a variable exported in the caller's shell (`PORT`, say) cannot change what the
 * test runs against.
 */
export const CONFIG_VARIABLES = Object.keys(variables) as ReadonlyArray<keyof typeof variables>;

const schema = z
  .object(variables)
  .superRefine((env, ctx) => {
    if (env.VOICE_BASE_URL && !env.VOICE_API_KEY) ctx.addIssue({ code: 'custom', path: ['VOICE_API_KEY'], message: 'is required when VOICE_BASE_URL is set' });
    if (env.VOICE_BASE_URL && !env.SESSION_SECRET) ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: 'is required when VOICE_BASE_URL is set' });
  });

/** A key's quota, or a user's limits: requests a minute and an hour. */
export interface Rate {
  perMinute: number;
  perHour: number;
}

/** spec 8: a key's quota unless the provider raised it. */
export const SPEC_KEY_QUOTA: Rate = { perMinute: 100, perHour: 10_000 };

export interface Config {
  port: number;
  /** The address the demo server listens on (`HOST`, default 127.0.0.1: this machine only). */
  host: string;
  /** Unset: run the embedded simulator. */
  voice: { baseUrl: string; apiKey: string } | undefined;
  sessionSecret: string;
  /**
   * The proxy's per-user limits, below the quota of the key it spends (README, "Mounting the proxy"):
   * `VOICE_USER_RATE_*` as given, else 80 % of the quota's minute and 50 % of its hour.
   *
   * @param keyQuota - the key's quota when it is known (`npm start` passes the embedded simulator's);
   * default {@link SPEC_KEY_QUOTA}
   */
  userRate(keyQuota?: Rate): Rate;
  /** Set: the per-user counts and the key's budget live in this Redis, shared by every proxy replica. */
  redisUrl: string | undefined;
  /**
   * The `notifySecret` of the demo's queues. Set, replicas that share it share the queues: one that finds them
   * at the service takes them instead of making its own. Unset, each process makes its queues with a secret of
   * its own.
   */
  queueSecret: string | undefined;
  /** The proxy's log level: `info` writes a JSON line per request, `warn` only its notices. */
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

/** Parses the environment; throws a ConfigError whose message is the one line to print. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const e = parseEnvironment(schema, env);
  return {
    port: e.PORT,
    host: e.HOST,
    voice: e.VOICE_BASE_URL && e.VOICE_API_KEY ? { baseUrl: e.VOICE_BASE_URL, apiKey: e.VOICE_API_KEY } : undefined,
    // With the embedded simulator a per-process secret is enough: logins last as long as the process.
    sessionSecret: e.SESSION_SECRET ?? randomBytes(32).toString('base64url'),
    userRate: (keyQuota = SPEC_KEY_QUOTA) => ({
      perMinute: e.VOICE_USER_RATE_PER_MINUTE ?? Math.max(1, Math.floor(0.8 * keyQuota.perMinute)),
      perHour: e.VOICE_USER_RATE_PER_HOUR ?? Math.max(1, Math.floor(0.5 * keyQuota.perHour)),
    }),
    redisUrl: e.REDIS_URL,
    queueSecret: e.QUEUE_SECRET,
    logLevel: e.LOG_LEVEL,
  };
}
