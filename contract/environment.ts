import { z } from 'zod';

/**
 * How the proxy and the simulator read their start-up configuration: parsed once with zod, and a bad value
 * stops start-up with one line naming the variable, never a stack trace. Each keeps its own variables (the demo
 * server its own, the simulator its `SIM_*`); contract/ imports neither of them.
 */

/** A bad or missing variable; its message is the one line to print. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A port, 0 (a free one, as the tests use) to 65535. */
export const port = (fallback: number) => portNumber().default(fallback);

/** A port number with no default, for a port that is only opened when set. */
export const portNumber = () =>
  z.coerce.number({ error: 'must be a port number 0-65535' }).int('must be a port number 0-65535').min(0, 'must be a port number 0-65535').max(65535, 'must be a port number 0-65535');

/** A count of requests, as quotas and rate limits are given. */
export const requestCount = () => z.coerce.number({ error: 'must be a whole number of requests' }).int().min(1, 'must be at least 1');

/**
 * Parses `env` with `schema`; an empty value counts as unset. Throws a {@link ConfigError} naming the first
 * variable that is wrong: `configuration: SIM_PORT must be a port number 0-65535`.
 */
export function parseEnvironment<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const blankless = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = schema.safeParse(blankless);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ConfigError(`configuration: ${String(issue?.path[0] ?? 'environment')} ${issue?.message ?? 'is invalid'}`);
}
