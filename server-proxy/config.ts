import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { DEFAULT_RECIPIENT_TIMINGS } from './simulator/recipients.js';

/**
 * Start-up configuration from the environment (DESIGN.md, "Environment"), parsed once with zod.
 * A bad value stops start-up with one line naming the variable.
 */

/** The simulator's well-known development key: its fixed prefix plus 32 alphanumeric characters (spec 5.2). */
export const DEFAULT_SIM_API_KEY = 'vsk_SimulatorDefaultKey0000000000000';
export const SIM_KEY_FORMAT = /^vsk_[A-Za-z0-9]{32}$/;

const port = (fallback: number) =>
  z.coerce.number({ error: 'must be a port number 0-65535' }).int().min(0, 'must be a port number 0-65535').max(65535, 'must be a port number 0-65535').default(fallback);

const milliseconds = (fallback: number) =>
  z.coerce.number({ error: 'must be a whole number of milliseconds' }).int('must be a whole number of milliseconds').min(0, 'must be a whole number of milliseconds').default(fallback);

/** Every environment variable the configuration reads, with its rule; {@link CONFIG_VARIABLES} names them. */
const variables = {
  PORT: port(8080),
  SIM_PORT: port(8090),
  SIM_API_KEY: z.string().regex(SIM_KEY_FORMAT, 'must be "vsk_" followed by 32 letters or digits').default(DEFAULT_SIM_API_KEY),
  VOICE_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://voice.example.com/api' }).optional(),
  VOICE_API_KEY: z.string().regex(/^\S{8,}$/, 'must be the API key (at least 8 characters, no spaces)').optional(),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SIM_QUOTA_PER_MINUTE: z.coerce.number({ error: 'must be a whole number of requests' }).int().min(1, 'must be at least 1').default(100),
  SIM_QUOTA_PER_HOUR: z.coerce.number({ error: 'must be a whole number of requests' }).int().min(1, 'must be at least 1').default(10_000),
  SIM_NO_ANSWER_MS: milliseconds(DEFAULT_RECIPIENT_TIMINGS.noAnswerMs),
  SIM_OUTCOME_UNKNOWN_MS: milliseconds(DEFAULT_RECIPIENT_TIMINGS.outcomeUnknownMs),
  VOICE_USER_RATE_PER_MINUTE: z.coerce.number({ error: 'must be a whole number of requests' }).int().min(1, 'must be at least 1').optional(),
  VOICE_USER_RATE_PER_HOUR: z.coerce.number({ error: 'must be a whole number of requests' }).int().min(1, 'must be at least 1').optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
};

/**
 * The names of every environment variable the app's configuration reads.
 *
 * @remarks
 * Whoever starts the app for a test (scripts/start-app.ts) removes these from the environment it passes on,
 * so a variable exported in the caller's shell (`SIM_API_KEY` for `npm run simulator`, say) cannot change
 * what the test runs against.
 */
export const CONFIG_VARIABLES = Object.keys(variables) as ReadonlyArray<keyof typeof variables>;

const schema = z
  .object(variables)
  .superRefine((env, ctx) => {
    if (env.VOICE_BASE_URL && !env.VOICE_API_KEY) ctx.addIssue({ code: 'custom', path: ['VOICE_API_KEY'], message: 'is required when VOICE_BASE_URL is set' });
    if (env.VOICE_BASE_URL && !env.SESSION_SECRET) ctx.addIssue({ code: 'custom', path: ['SESSION_SECRET'], message: 'is required when VOICE_BASE_URL is set' });
  });

export interface Config {
  port: number;
  simPort: number;
  simApiKey: string;
  /** The simulator's per-key quota (spec 8 defaults: 100 a minute, 10,000 an hour). */
  simQuota: { perMinute: number; perHour: number };
  /**
   * How long the simulator's +12025550103 rings before `no_answer` and +12025550107 stays `outcome_unknown`
   * (DESIGN.md: 8 s and 10 s); the e2e suite shortens them.
   */
  simTimings: { noAnswerMs: number; outcomeUnknownMs: number };
  /** Unset: run the embedded simulator. */
  voice: { baseUrl: string; apiKey: string } | undefined;
  sessionSecret: string;
  /** The proxy's per-user limits, below the key's quota (README, "Mounting the proxy"). */
  userRate: { perMinute: number; perHour: number };
  /** Set: the per-user counts live in this Redis, shared by every proxy replica. */
  redisUrl: string | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; throws a ConfigError whose message is the one line to print. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const blankless = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(blankless);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(`configuration: ${String(issue?.path[0] ?? 'environment')} ${issue?.message ?? 'is invalid'}`);
  }
  const e = result.data;
  return {
    port: e.PORT,
    simPort: e.SIM_PORT,
    simApiKey: e.SIM_API_KEY,
    simQuota: { perMinute: e.SIM_QUOTA_PER_MINUTE, perHour: e.SIM_QUOTA_PER_HOUR },
    simTimings: { noAnswerMs: e.SIM_NO_ANSWER_MS, outcomeUnknownMs: e.SIM_OUTCOME_UNKNOWN_MS },
    voice: e.VOICE_BASE_URL && e.VOICE_API_KEY ? { baseUrl: e.VOICE_BASE_URL, apiKey: e.VOICE_API_KEY } : undefined,
    // With the embedded simulator a per-process secret is enough: logins last as long as the process.
    sessionSecret: e.SESSION_SECRET ?? randomBytes(32).toString('base64url'),
    // Below the key's quota (spec 8: 100 a minute, 10,000 an hour); with the embedded simulator its quota is
    // known, so the defaults follow it (80 % a minute, 50 % an hour).
    userRate: {
      perMinute: e.VOICE_USER_RATE_PER_MINUTE ?? Math.max(1, Math.floor(0.8 * (e.VOICE_BASE_URL ? 100 : e.SIM_QUOTA_PER_MINUTE))),
      perHour: e.VOICE_USER_RATE_PER_HOUR ?? Math.max(1, Math.floor(0.5 * (e.VOICE_BASE_URL ? 10_000 : e.SIM_QUOTA_PER_HOUR))),
    },
    redisUrl: e.REDIS_URL,
  };
}
