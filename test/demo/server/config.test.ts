import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../contract/environment.js';
import { CONFIG_VARIABLES, parseConfig } from '../../../demo/server/config.js';

/** The proxy's own variables: per-user limits below the key's quota, and the shared Redis store. */

const real = { VOICE_BASE_URL: 'https://voice.example.com/api', VOICE_API_KEY: 'vk_live_0123456789', SESSION_SECRET: 's'.repeat(32) };

describe('per-user limits', () => {
  it('default below the spec’s key quota for a real service: 80 a minute, 5,000 an hour', () => {
    expect(parseConfig(real).userRate()).toEqual({ perMinute: 80, perHour: 5000 });
  });

  it('follow the embedded simulator’s quota when it is raised (benchmarks), staying below it', () => {
    // npm start passes the embedded simulator's quota (SIM_QUOTA_PER_*), which it knows; its default is the spec's.
    expect(parseConfig({}).userRate({ perMinute: 100, perHour: 10_000 })).toEqual({ perMinute: 80, perHour: 5000 });
    expect(parseConfig({}).userRate({ perMinute: 1000, perHour: 100_000 })).toEqual({ perMinute: 800, perHour: 50_000 });
  });

  it('take VOICE_USER_RATE_PER_MINUTE and VOICE_USER_RATE_PER_HOUR as given', () => {
    expect(parseConfig({ ...real, VOICE_USER_RATE_PER_MINUTE: '30', VOICE_USER_RATE_PER_HOUR: '900' }).userRate()).toEqual({ perMinute: 30, perHour: 900 });
  });

  it.each([
    ['VOICE_USER_RATE_PER_MINUTE', '0'],
    ['VOICE_USER_RATE_PER_HOUR', 'lots'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['QUEUE_SECRET', 'too-short'],
  ])('stop start-up with one line naming %s=%s', (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(new RegExp(`^configuration: ${name} `));
  });
});

describe('REDIS_URL', () => {
  it('is unset by default (counts in memory) and kept when it is a redis:// URL', () => {
    expect(parseConfig({}).redisUrl).toBeUndefined();
    expect(parseConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl).toBe('redis://127.0.0.1:6379/2');
  });
});

describe('QUEUE_SECRET', () => {
  it('is unset by default (a secret per process) and kept when long enough', () => {
    expect(parseConfig({}).queueSecret).toBeUndefined();
    expect(parseConfig({ QUEUE_SECRET: 'q'.repeat(32) }).queueSecret).toBe('q'.repeat(32));
  });
});

describe('HOST', () => {
  it('listens on this machine only by default, and on the address given', () => {
    expect(parseConfig({}).host).toBe('127.0.0.1');
    for (const host of ['0.0.0.0', '::', '::1', 'localhost', 'voice.internal']) expect(parseConfig({ HOST: host }).host).toBe(host);
  });

  it('stops start-up with one line for what is not an address', () => {
    expect(() => parseConfig({ HOST: 'http://0.0.0.0' })).toThrow(/^configuration: HOST must be an address to listen on/);
  });
});

describe('LOG_LEVEL', () => {
  it('writes a line per request by default, and takes the levels pino knows', () => {
    expect(parseConfig({}).logLevel).toBe('info');
    expect(parseConfig({ LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
    expect(() => parseConfig({ LOG_LEVEL: 'loud' })).toThrow(/^configuration: LOG_LEVEL must be one of debug, info, warn, error, silent/);
  });
});

describe('CONFIG_VARIABLES', () => {
  it.each(CONFIG_VARIABLES)('names %s, a variable the configuration reads', (name) => {
    // Every rule refuses this value: the list is the schema's own, not a copy that could drift.
    expect(() => parseConfig({ [name]: 'not valid' })).toThrow(new RegExp(`^configuration: ${name} `));
  });

  it('leaves the simulator’s variables to the simulator: the proxy reads none of them', () => {
    expect(CONFIG_VARIABLES.filter((name) => name.startsWith('SIM_'))).toEqual([]);
    expect(() => parseConfig({ SIM_PORT: 'not valid', SIM_API_KEY: 'not valid' })).not.toThrow();
  });
});
