/**
 * The network profiles through the control API of a running simulator with Debian's coturn (docs/network.md):
 * a subject's new session carries the profile's TURN URLs, `relay` policy and TURN REST API credentials that the
 * real coturn accepts (or, for `turn-refused`, refuses), valid a day past the session's expiry; another subject
 * keeps `open`; a renewed session gets new credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCoturn } from '../../../scripts/ensure-coturn.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import type { SimulatorNetwork } from '../../../simulator/turn/network-profile.js';
import { turnCredentials } from '../../../simulator/turn/turn-credentials.js';
import { SIM_TEST_KEY, SimulatorApi } from '../support/sim-api.js';
import { allocate } from '../support/turn-allocate.js';

let sim: RunningSimulator;
let api: SimulatorApi;
beforeAll(async () => {
  ensureCoturn();
  sim = await startSimulator({ apiKey: SIM_TEST_KEY, port: 0, mediaAddresses: 'loopback' });
  api = new SimulatorApi(sim);
});
afterAll(() => sim?.close());

const setNetwork = (body: unknown) => api.control<{ network: SimulatorNetwork; code?: string }>('PUT', '/network', body);
const hostPort = (url: string): [string, number] => {
  const [, host = '', port = '0'] = /^turns?:([^:]+):(\d+)/.exec(url) ?? [];
  return [host, Number(port)];
};

describe('TURN REST API credentials', () => {
  it('are the expiry in seconds and the user, signed by HMAC-SHA1 of the shared secret in base64', () => {
    // Computed apart: printf '1700000000:alice' | openssl dgst -sha1 -hmac north -binary | base64
    expect(turnCredentials('north', 'alice', 1_700_000_000_000)).toEqual({ username: '1700000000:alice', credential: 'Cd/49soE35ICqcJF/bCTn8Z4OyE=' });
  });
});

describe('network profiles', () => {
  it('gives a subject on turn-udp one UDP TURN URL, relay only, and credentials coturn takes a day past the session', async () => {
    expect((await setNetwork({ profile: 'turn-udp', externalSubject: 'net-udp' })).body.network.subjects).toEqual({ 'net-udp': 'turn-udp' });
    const { session, transport } = await api.openSession('net-udp');
    expect(transport.iceTransportPolicy).toBe('relay');
    const [server] = transport.iceServers;
    expect(server?.urls).toEqual([expect.stringMatching(/^turn:127\.0\.0\.1:\d+\?transport=udp$/)]);
    // A call accepted before the session expired outlives it (service interface 3.2), and so must its relay.
    const day = 24 * 60 * 60;
    expect(server?.username).toBe(`${Math.ceil(Date.parse(session.expiresAt) / 1000) + day}:${transport.authorizationUsername}`);
    const [host, port] = hostPort(String([server?.urls].flat()[0]));
    expect(await allocate(host, port, server?.username ?? '', server?.credential ?? '')).toBe('allocated');

    // A renewed session (a new one of the subject) carries credentials of its own.
    const renewed = await api.request<{ transport: typeof transport }>('POST', '/browser-sessions', { externalSubject: 'net-udp' });
    expect(renewed.body.transport.iceServers[0]?.username).not.toBe(server?.username);
  });

  it('keeps open for other subjects, and gives each transport its one URL, relay-only all three', async () => {
    const other = (await api.openSession('net-other')).transport;
    expect(other.iceServers).toEqual([]);
    expect(other.iceTransportPolicy).toBeUndefined();
    const urls = async (profile: string, subject: string) => {
      await setNetwork({ profile, externalSubject: subject });
      return [(await api.openSession(subject)).transport.iceServers[0]?.urls].flat();
    };
    expect(await urls('turn-tcp', 'net-tcp')).toEqual([expect.stringMatching(/^turn:127\.0\.0\.1:\d+\?transport=tcp$/)]);
    expect(await urls('turn-tls', 'net-tls')).toEqual([expect.stringMatching(/^turns:127\.0\.0\.1:\d+\?transport=tcp$/)]);
    expect(await urls('relay-only', 'net-all')).toHaveLength(3);
  });

  it('gives turn-refused credentials that coturn answers 401, and slow-turn a relay in front of it', async () => {
    await setNetwork({ profile: 'turn-refused', externalSubject: 'net-refused' });
    const [refused] = (await api.openSession('net-refused')).transport.iceServers;
    const [host, port] = hostPort(String([refused?.urls].flat()[0]));
    expect(await allocate(host, port, refused?.username ?? '', refused?.credential ?? '')).toBe(401);

    const slow = (await setNetwork({ profile: 'slow-turn', externalSubject: 'net-slow' })).body.network;
    const [server] = (await api.openSession('net-slow')).transport.iceServers;
    const [slowHost, slowPort] = hostPort(String([server?.urls].flat()[0]));
    expect(`${slowHost}:${slowPort}`).toBe(slow.turn?.slowUdp);
    expect(slowPort).not.toBe(port);
    const started = Date.now();
    expect(await allocate(slowHost, slowPort, server?.username ?? '', server?.credential ?? '')).toBe('allocated');
    // Two round trips, each held both ways.
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('refuses an unknown profile with 400 invalid_input naming the field, and reset puts back open', async () => {
    const refused = await setNetwork({ profile: 'carrier-pigeon' });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_input');
    await setNetwork({ profile: 'relay-only' });
    expect((await api.openSession('net-everyone')).transport.iceServers).toHaveLength(1);
    await api.control('POST', '/reset');
    expect((await api.control<{ network: SimulatorNetwork }>('GET', '/network')).body.network).toMatchObject({ profile: 'open', subjects: {} });
  });
});
