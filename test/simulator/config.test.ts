import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../contract/environment.js';
import { fakeInterfaces } from './support/fake-interfaces.js';
import { DEFAULT_SIM_API_KEY, DEMO_KEY_QUOTA, describeMediaAddresses, describeQuota, parseSimulatorConfig, SIMULATOR_CONFIG_VARIABLES, startedKeyQuota } from '../../simulator/config.js';

/** The simulator's own variables (SIM_*), read by `npm run simulator` and by `npm start` when it embeds it. */

describe('the simulator’s port, key and quota', () => {
  it('default to 8090, the documented development key, and the spec’s quota (100 a minute, 10,000 an hour)', () => {
    expect(parseSimulatorConfig({})).toMatchObject({ port: 8090, apiKey: DEFAULT_SIM_API_KEY, quota: { perMinute: 100, perHour: 10_000 } });
  });

  it('take SIM_PORT, SIM_API_KEY and SIM_QUOTA_PER_* as given', () => {
    const key = `vsk_${'A'.repeat(32)}`;
    expect(parseSimulatorConfig({ SIM_PORT: '0', SIM_API_KEY: key, SIM_QUOTA_PER_MINUTE: '1000', SIM_QUOTA_PER_HOUR: '100000' })).toMatchObject({
      port: 0,
      apiKey: key,
      quota: { perMinute: 1000, perHour: 100_000 },
    });
  });

  it('give npm start’s demo key its own quota, sized for the walkthroughs, and say so; every other key keeps the spec’s', () => {
    const demo = parseSimulatorConfig({}, { demo: true });
    expect(demo).toMatchObject({ quota: { perMinute: 100, perHour: 10_000 }, keyQuota: DEMO_KEY_QUOTA });
    expect(startedKeyQuota(demo)).toEqual(DEMO_KEY_QUOTA);
    expect(describeQuota(demo)).toMatch(/^simulator key quota: 1000 requests a minute, 60000 an hour, a demo key sized for the demo's walkthroughs \(docs\/demo\.md\) .*the spec's default of 100 a minute serves one call at once; SIM_QUOTA_PER_MINUTE and SIM_QUOTA_PER_HOUR set it$/);
    // The simulator on its own keeps the spec's default for its key too.
    expect(parseSimulatorConfig({}).keyQuota).toBeUndefined();
    expect(startedKeyQuota(parseSimulatorConfig({}))).toEqual({ perMinute: 100, perHour: 10_000 });
  });

  it('let SIM_QUOTA_PER_* set the demo key’s quota as they set the simulator’s', () => {
    const set = parseSimulatorConfig({ SIM_QUOTA_PER_MINUTE: '100' }, { demo: true });
    expect(set.keyQuota).toBeUndefined();
    expect(startedKeyQuota(set)).toEqual({ perMinute: 100, perHour: 10_000 });
    expect(describeQuota(set)).toBe('simulator key quota: 100 requests a minute, 10000 an hour (SIM_QUOTA_PER_MINUTE, SIM_QUOTA_PER_HOUR)');
  });

  it('stop start-up with one line naming SIM_API_KEY when it is not "vsk_" and 32 letters or digits', () => {
    expect(() => parseSimulatorConfig({ SIM_API_KEY: 'vsk_short' })).toThrow(ConfigError);
    expect(() => parseSimulatorConfig({ SIM_API_KEY: 'vsk_short' })).toThrow(/^configuration: SIM_API_KEY must be "vsk_" followed by 32 letters or digits$/);
  });
});

describe('the simulator test numbers\' timings', () => {
  it('default to the documented 8 s of ringing (+12025550103) and 10 s of unknown outcome (+12025550107)', () => {
    expect(parseSimulatorConfig({})).toMatchObject({ noAnswerMs: 8000, outcomeUnknownMs: 10_000 });
  });

  it('take SIM_NO_ANSWER_MS and SIM_OUTCOME_UNKNOWN_MS as given (the e2e suite shortens them)', () => {
    expect(parseSimulatorConfig({ SIM_NO_ANSWER_MS: '3000', SIM_OUTCOME_UNKNOWN_MS: '4000' })).toMatchObject({ noAnswerMs: 3000, outcomeUnknownMs: 4000 });
  });

  it("leave a quiet call's media timeout to the simulator unless SIM_MEDIA_TIMEOUT_MS sets it (the e2e suite lengthens it)", () => {
    expect(parseSimulatorConfig({})).not.toHaveProperty('mediaTimeoutMs');
    expect(parseSimulatorConfig({ SIM_MEDIA_TIMEOUT_MS: '120000' })).toMatchObject({ mediaTimeoutMs: 120_000 });
  });

  it.each([
    ['SIM_NO_ANSWER_MS', '-1'],
    ['SIM_OUTCOME_UNKNOWN_MS', '2.5 s'],
    ['SIM_MEDIA_TIMEOUT_MS', '0'],
  ])('stop start-up with one line naming %s=%s', (name, value) => {
    expect(() => parseSimulatorConfig({ [name]: value })).toThrow(new RegExp(`^configuration: ${name} must be a whole number of milliseconds$`));
  });
});

describe('the SIP edge profile', () => {
  it('defaults to "kamailio" and takes SIM_EDGE_PROFILE as given', () => {
    expect(parseSimulatorConfig({}).edgeProfile).toBe('kamailio');
    expect(parseSimulatorConfig({ SIM_EDGE_PROFILE: 'carrier-sbc' }).edgeProfile).toBe('carrier-sbc');
  });

  it('stops start-up with one line naming SIM_EDGE_PROFILE and the profiles for any other value', () => {
    expect(() => parseSimulatorConfig({ SIM_EDGE_PROFILE: 'opensips' })).toThrow(/^configuration: SIM_EDGE_PROFILE must be "kamailio", "no-crlf-pong", "asterisk", "carrier-sbc"$/);
  });
});

describe('the calls’ media addresses', () => {
  it('default to "host", so a browser with default settings pairs, and take SIM_MEDIA_ADDRESSES=loopback', () => {
    expect(parseSimulatorConfig({}).mediaAddresses).toBe('host');
    expect(parseSimulatorConfig({ SIM_MEDIA_ADDRESSES: 'loopback' }).mediaAddresses).toBe('loopback');
  });

  it('stop start-up with one line naming SIM_MEDIA_ADDRESSES for any other value', () => {
    expect(() => parseSimulatorConfig({ SIM_MEDIA_ADDRESSES: '0.0.0.0' })).toThrow(/^configuration: SIM_MEDIA_ADDRESSES must be "host" or "loopback"$/);
  });

  it('are described at start-up: the addresses offered, or why a browser with default settings gets no audio', () => {
    const lan = fakeInterfaces({ lo: ['127.0.0.1'], eth0: ['192.0.2.10'] });
    expect(describeMediaAddresses({ mediaAddresses: 'host' }, lan)).toBe('192.0.2.10');
    expect(describeMediaAddresses({ mediaAddresses: 'host' }, fakeInterfaces({ lo: ['127.0.0.1'] }))).toMatch(/^127\.0\.0\.1 only: this machine has no network address up/);
    expect(describeMediaAddresses({ mediaAddresses: 'loopback' }, lan)).toMatch(/^127\.0\.0\.1 only, for browsers started with loopback switches/);
  });
});

describe('an edge in front of the simulator', () => {
  it('is off by default: no SIP over UDP, and the sessions name the simulator\'s own /sip', () => {
    const config = parseSimulatorConfig({});
    expect(config.sipUdpPort).toBeUndefined();
    expect(config.sipEdgeUrl).toBeUndefined();
  });

  it('takes SIM_SIP_UDP_PORT (0: a free one) and SIM_SIP_EDGE_URL as given', () => {
    expect(parseSimulatorConfig({ SIM_SIP_UDP_PORT: '0', SIM_SIP_EDGE_URL: 'ws://127.0.0.1:5066' })).toMatchObject({ sipUdpPort: 0, sipEdgeUrl: 'ws://127.0.0.1:5066' });
    expect(parseSimulatorConfig({ SIM_SIP_UDP_PORT: '5070', SIM_SIP_EDGE_URL: 'wss://edge.example.com/sip' }).sipEdgeUrl).toBe('wss://edge.example.com/sip');
  });

  it('stops start-up with one line naming the variable for a bad port or a URL that is not ws:// or wss://', () => {
    expect(() => parseSimulatorConfig({ SIM_SIP_UDP_PORT: '70000' })).toThrow(/^configuration: SIM_SIP_UDP_PORT must be a port number 0-65535$/);
    expect(() => parseSimulatorConfig({ SIM_SIP_UDP_PORT: '0', SIM_SIP_EDGE_URL: 'http://127.0.0.1:5066' })).toThrow(/^configuration: SIM_SIP_EDGE_URL must be a ws:\/\/ or wss:\/\/ URL$/);
    // The edge relays to the UDP side: an edge without one would be given to pages whose SIP goes nowhere.
    expect(() => parseSimulatorConfig({ SIM_SIP_EDGE_URL: 'ws://127.0.0.1:5066' })).toThrow(/^configuration: SIM_SIP_EDGE_URL needs SIM_SIP_UDP_PORT/);
  });
});

describe('SIMULATOR_CONFIG_VARIABLES', () => {
  it.each(SIMULATOR_CONFIG_VARIABLES)('names %s, a variable the configuration reads', (name) => {
    // Every rule refuses this value: the list is the schema's own, not a copy that could drift.
    expect(() => parseSimulatorConfig({ [name]: 'not valid' })).toThrow(new RegExp(`^configuration: ${name} `));
  });

  it('leaves the proxy’s variables to the proxy: the simulator reads none of them', () => {
    expect(() => parseSimulatorConfig({ PORT: 'not valid', VOICE_BASE_URL: 'not valid', REDIS_URL: 'not valid' })).not.toThrow();
  });
});

