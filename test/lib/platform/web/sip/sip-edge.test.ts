// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QUERY_EVERY_MS, QUERY_WAIT_MS } from '../../../../../lib/platform/web/sip/keep-alive.js';
import { UNREGISTER_WAIT_MS } from '../../../../../lib/platform/web/sip/sip-adapter.js';
import type { Connection } from '../../../../../lib/core/types.js';
import { sipLinkWorld, wait } from '../../../../support/sip-link-world.js';

/**
 * The real link (sip-adapter.ts and its parts over SIP.js's core) against edges we did not write, as raw SIP on
 * fake sockets (test/support/fake-sip-edge.ts): what Asterisk, OpenSIPS, FreeSWITCH and carriers' SBCs say that
 * our simulator never did. The session asks for a 600 s binding.
 */

const names = (states: Array<[number, Connection]>) => states.map(([, state]) => state);

describe('the link against edges we did not write', () => {
  const world = sipLinkWorld();
  const edge = () => world.sockets.edge;
  const asked = () => edge().registers.map(({ expires }) => expires);
  const registeredAt = () => edge().registers.map(({ at }) => at - world.started);

  describe('registration (RFC 3261 section 10)', () => {
    it('asks again for Min-Expires when connect() is answered 423 Interval Too Brief, and refreshes at half of it', async () => {
      edge().minExpires = 3600;
      const { states } = await world.ready();
      expect(asked()).toEqual([600, 3600]);
      await wait(1800_000);
      expect(asked()).toEqual([600, 3600, 3600]);
      expect(names(states)).toEqual(['connecting', 'ready']);
    });

    it('asks again for Min-Expires when a refresh is answered 423, and stays ready', async () => {
      const { states } = await world.ready();
      edge().minExpires = 3600;
      await wait(300_000);
      expect(asked()).toEqual([600, 600, 3600]);
      expect(edge().boundUntil - Date.now()).toBe(3600_000);
      expect(names(states)).toEqual(['connecting', 'ready']);
    });

    it('retries a refresh answered 503 (after its Retry-After), 500, 408 or not at all, with growing waits, ready throughout', async () => {
      const { states } = await world.ready();
      edge().answers.push({ status: 503, headers: ['Retry-After: 60'] }, 500, 408, 'silence', 503);
      await wait(600_000 - 1);

      const [, refused, ...retries] = registeredAt();
      expect(refused).toBe(300_000);
      expect(retries).toHaveLength(5);
      expect(retries[0]! - refused!).toBeGreaterThanOrEqual(60_000);
      // Each wait is longer than the last's least: the bound doubles (RFC 5626 section 4.5), and silence costs Timer F.
      const waits = retries.slice(1).map((at, index) => at - retries[index]!);
      waits.forEach((waited, index) => expect(waited).toBeGreaterThanOrEqual(2 ** index * 500));
      expect(edge().boundUntil).toBeGreaterThan(Date.now());
      expect(names(states)).toEqual(['connecting', 'ready']);
    });

    it('keeps trying a registrar that refuses every refresh: ready while the binding lasts, then reconnecting, never expired', async () => {
      const { voice, states } = await world.ready();
      edge().answers.push(...Array<number>(400).fill(503));
      await wait(600_000 + 1000);
      expect(states.find(([, state]) => state !== 'connecting' && state !== 'ready')).toEqual([expect.any(Number), 'reconnecting']);
      expect(states.find(([, state]) => state === 'reconnecting')![0]).toBeGreaterThanOrEqual(600_000);

      edge().answers.length = 0;
      await wait(60_000);
      expect(voice.status()).toMatchObject({ connection: 'ready', error: null });
      expect(names(states)).not.toContain('expired');
    });

    it('ends the registration when a refresh is refused after a fresh challenge: expired, browser_session_unavailable, no REGISTER after', async () => {
      edge().challenges = ['MD5'];
      const { voice } = await world.ready();
      edge().password = 'revoked';
      await wait(300_000);
      expect(voice.status()).toMatchObject({ connection: 'expired', error: { code: 'browser_session_unavailable' } });
      const count = edge().registers.length;
      await wait(600_000);
      expect(edge().registers).toHaveLength(count);
    });
  });

  describe('digest (RFC 7616, RFC 8760)', () => {
    for (const order of [
      ['MD5', 'SHA-256'],
      ['SHA-256', 'MD5'],
    ]) {
      it(`answers a registrar that offers ${order.join(' then ')} with SHA-256, as the registrar computes it`, async () => {
        edge().challenges = order;
        await world.ready();
        expect(edge().authorizations).toEqual(['', expect.stringMatching(/^Digest algorithm=SHA-256, /)]);
      });
    }

    it('answers stale=true again without taking it as a refusal, and refreshes without replaying a nonce called stale', async () => {
      edge().challenges = ['MD5'];
      edge().staleNext = true;
      const { states } = await world.ready();
      const nonces = () => edge().authorizations.map((header) => /nonce="(\w+)"/.exec(header)?.[1] ?? '');
      expect(nonces()).toEqual(['', expect.any(String), expect.any(String)]);
      expect(nonces()[1]).not.toBe(nonces()[2]);

      edge().staleNonces();
      await wait(300_000);
      // The refresh asks afresh, then answers the new nonce; the one called stale never goes out again.
      expect(nonces().slice(3)).toEqual(['', expect.any(String)]);
      expect(nonces().slice(4)).not.toContain(nonces()[2]);
      expect(names(states)).toEqual(['connecting', 'ready']);
    });
  });

  describe('keep-alive (RFC 5626 section 4.4.1)', () => {
    beforeEach(() => {
      edge().outbound = false;
      edge().pongs = false;
    });

    it('stays ready for minutes on one socket with an edge that confirmed no outbound and answers no ping, asking it with OPTIONS', async () => {
      const { states } = await world.ready();
      await wait(10 * 60_000);
      expect(names(states)).toEqual(['connecting', 'ready']);
      expect(world.sockets.opened).toHaveLength(1);
      expect(world.sockets.last.sent).not.toContain('\r\n\r\n');
      expect(edge().queries.length).toBeGreaterThan(0);
      expect(edge().queries.length).toBeLessThanOrEqual((10 * 60_000) / QUERY_EVERY_MS);
    });

    it('still finds a stalled socket there and reconnects it, and asks at once when the page is back online', async () => {
      const { voice, states } = await world.ready();
      world.sockets.last.stall();
      await wait(2 * QUERY_EVERY_MS + QUERY_WAIT_MS);
      expect(names(states)).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
      expect(world.sockets.opened).toHaveLength(2);

      const before = edge().queries.length;
      window.dispatchEvent(new Event('online'));
      await wait(0);
      expect(edge().queries).toHaveLength(before + 1);
      expect(voice.status().connection).toBe('ready');
    });

    it('expects pongs from an edge that confirmed outbound: a silent one is found within a ping and its last chance', async () => {
      edge().outbound = true;
      const { states } = await world.ready();
      await wait(20_000);
      expect(names(states)).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
    });
  });

  describe('reconnection (RFC 5626 section 4.5)', () => {
    let onLine = true;
    beforeEach(() => {
      onLine = true;
      vi.spyOn(navigator, 'onLine', 'get').mockImplementation(() => onLine);
    });

    it('shows offline only while the browser says so, and goes back to reconnecting, and tries at once, when it is online', async () => {
      const { voice, states } = await world.ready();
      edge().down = true;
      world.sockets.last.drop();
      await wait(3000);
      expect(voice.status().connection).toBe('reconnecting');
      onLine = false;
      window.dispatchEvent(new Event('offline'));
      await wait(60_000);
      expect(voice.status().connection).toBe('offline');

      edge().down = false;
      onLine = true;
      const opened = world.sockets.opened.length;
      window.dispatchEvent(new Event('online'));
      await wait(0);
      expect(world.sockets.opened).toHaveLength(opened + 1);
      expect(names(states)).toEqual(['connecting', 'ready', 'reconnecting', 'offline', 'reconnecting', 'ready']);
    });

    it('brings 20 pages back spread out, not in lockstep, after their edge was away 5 s', async () => {
      const phones = [];
      for (let index = 0; index < 20; index++) phones.push(await world.ready());
      edge().down = true;
      for (const socket of [...world.sockets.opened]) socket.drop();
      await wait(5000);
      edge().down = false;
      await wait(60_000);

      const back = phones.map(({ states }) => states.at(-1)!);
      expect(back.map(([, state]) => state)).toEqual(Array<Connection>(20).fill('ready'));
      const times = back.map(([at]) => at);
      expect(new Set(times).size).toBeGreaterThan(10);
      expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(1000);
    });

    it('tries until the session is over, then shows expired and tries no more', async () => {
      const made = world.phone(new Date(Date.now() + 120_000).toISOString());
      const connecting = made.voice.connect();
      await wait(0);
      await connecting;
      edge().down = true;
      world.sockets.last.drop();
      await wait(119_000);
      expect(made.voice.status().connection).toBe('reconnecting');
      await wait(31_000);
      expect(made.voice.status()).toMatchObject({ connection: 'expired', error: { code: 'browser_session_unavailable' } });
      const opened = world.sockets.opened.length;
      await wait(10 * 60_000);
      expect(world.sockets.opened).toHaveLength(opened);
    });
  });

  describe('close()', () => {
    const thrown: unknown[] = [];
    const record = (event: Event) => void thrown.push(event);
    beforeEach(() => {
      thrown.length = 0;
      window.addEventListener('error', record);
      window.addEventListener('unhandledrejection', record);
      process.on('unhandledRejection', record);
    });
    afterEach(() => {
      window.removeEventListener('error', record);
      window.removeEventListener('unhandledrejection', record);
      process.off('unhandledRejection', record);
    });

    it("ends within the un-REGISTER's bounded wait on a stalled socket, and nothing thrown reaches the page", async () => {
      const { voice } = await world.ready();
      world.sockets.last.stall();
      let done = false;
      void voice.disconnect().then(() => (done = true));
      await wait(UNREGISTER_WAIT_MS);
      expect(done).toBe(true);
      expect(voice.status().connection).toBe('disconnected');
      await wait(60_000);
      expect(thrown).toEqual([]);
    });

    it('drops what the edge sends that the core cannot take, and stays ready', async () => {
      const { voice } = await world.ready();
      for (const frame of ['SIP/2.0 200 OK\r\nCSeq: x\r\n\r\n', 'INVITE sip:x SIP/2.0\r\nVia: nonsense\r\n\r\n', 'garbage\r\n\r\n']) world.sockets.last.receive(frame);
      await wait(60_000);
      expect(voice.status().connection).toBe('ready');
      expect(thrown).toEqual([]);
    });

    it('ends at once while the link reconnects to an edge that is away', async () => {
      const { voice } = await world.ready();
      edge().down = true;
      world.sockets.last.drop();
      await wait(5000);
      let done = false;
      void voice.disconnect().then(() => (done = true));
      await wait(0);
      expect(done).toBe(true);
      await wait(60_000);
      expect(thrown).toEqual([]);
    });
  });
});
