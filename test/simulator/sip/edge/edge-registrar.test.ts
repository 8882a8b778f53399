import { describe, expect, it } from 'vitest';
import { createSimulatorControl, type SimulatorEdgeInput } from '../../../../simulator/http/control-client.js';
import { challenges, RawSip } from '../../support/raw-sip.js';
import { useSipWorlds, type World } from '../../support/sip-world.js';

/**
 * The registrar and keep-alives of each edge profile (docs/simulator.md, "Edge profiles"), on the wire: raw
 * REGISTERs and CRLF pings over a real WebSocket, the profile set through the control API as a test of an app
 * would set it.
 */

const { world, defer } = useSipWorlds();

/** A world whose edge speaks as `edge`, and a raw SIP socket of its session. */
async function edgeWorld(edge: SimulatorEdgeInput | undefined): Promise<World & { sip: RawSip }> {
  const w = await world();
  if (edge) await createSimulatorControl(w.sim.url).setEdge(edge);
  const sip = await RawSip.open(w.transport);
  defer(async () => sip.close());
  return { ...w, sip };
}

/** Whether the registrar holds a binding of the world's session now (the control API's record). */
async function registered(w: World): Promise<boolean> {
  return (await createSimulatorControl(w.sim.url).registration(w.session.id)).registered;
}

/** Whether a double-CRLF ping on the socket is answered with a CRLF pong within half a second. */
async function pongs(sip: RawSip): Promise<boolean> {
  const from = sip.frames.length;
  sip.send('\r\n\r\n');
  return (await sip.next((frame) => frame === '\r\n', from, 500)) !== undefined;
}

describe('kamailio (the default)', () => {
  it('RFC 5626 sections 3.5.1 and 5.2: pongs a CRLF ping, and confirms outbound with Require: outbound when the REGISTER asked for it', async () => {
    const w = await edgeWorld(undefined);
    expect(await pongs(w.sip)).toBe(true);
    const { answer } = await w.sip.registerAuthenticated(600, { outbound: true });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('require')).toEqual(['outbound']);
    expect(answer.headers.get('contact')?.[0]).toMatch(/;expires=600$/);
  });

  it('confirms nothing to a REGISTER that did not ask for outbound', async () => {
    const w = await edgeWorld({ profile: 'kamailio' });
    const { answer } = await w.sip.registerAuthenticated(600);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('require')).toBeUndefined();
  });
});

describe('no-crlf-pong (OpenSIPS, Asterisk, FreeSWITCH)', () => {
  it('answers no CRLF ping and confirms no outbound, while it registers as usual', async () => {
    const w = await edgeWorld({ profile: 'no-crlf-pong' });
    expect(await pongs(w.sip)).toBe(false);
    const { answer } = await w.sip.registerAuthenticated(600, { outbound: true });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('require')).toBeUndefined();
    expect(await registered(w)).toBe(true);
  });
});

describe('asterisk', () => {
  it('RFC 8760: challenges with SHA-256 first and MD5 second, and takes an answer to either', async () => {
    const w = await edgeWorld({ profile: 'asterisk' });
    expect(await pongs(w.sip)).toBe(false);
    const sha = await w.sip.registerAuthenticated(600, { pick: (all) => all.find((c) => c.algorithm === 'SHA-256') });
    expect(challenges(sha.challenge).map((c) => c.algorithm)).toEqual(['SHA-256', 'MD5']);
    expect(sha.answer.status).toBe(200);

    const second = await RawSip.open(w.transport);
    defer(async () => second.close());
    const md5 = await second.registerAuthenticated(600, { pick: (all) => all.find((c) => c.algorithm === 'MD5') });
    expect(md5.answer.status).toBe(200);
  });

  it('refuses a SHA-256 answer over the wrong password with a new challenge, and binds nothing', async () => {
    const w = await edgeWorld({ profile: 'asterisk' });
    const wrong = await RawSip.open({ ...w.transport, authorizationPassword: 'not-the-password' });
    defer(async () => wrong.close());
    const { answer, used } = await wrong.registerAuthenticated(600, { pick: (all) => all.find((c) => c.algorithm === 'SHA-256') });
    expect(used.algorithm).toBe('SHA-256');
    expect(answer.status).toBe(401);
    expect(await registered(w)).toBe(false);
  });
});

describe('carrier-sbc', () => {
  it('RFC 3261 section 10.3: refuses a shorter lifetime 423 with Min-Expires: 3600, then grants the minimum as an Expires header alone', async () => {
    const w = await edgeWorld({ profile: 'carrier-sbc' });
    const short = await w.sip.registerAuthenticated(600);
    expect(short.answer.status).toBe(423);
    expect(short.answer.headers.get('min-expires')).toEqual(['3600']);
    expect(await registered(w)).toBe(false);

    const long = await w.sip.registerAuthenticated(3600);
    expect(long.answer.status).toBe(200);
    expect(long.answer.headers.get('contact')?.[0]).not.toMatch(/expires=/);
    expect(Number(long.answer.headers.get('expires')?.[0])).toBeGreaterThan(0);
  });

  it('takes each nonce once: the same answer again is challenged stale=true', async () => {
    const w = await edgeWorld({ profile: 'carrier-sbc', refuseEveryNthRefresh: 0 });
    const { answer, used } = await w.sip.registerAuthenticated(3600);
    expect(answer.status).toBe(200);
    const replay = await w.sip.register(3600, { challenge: used });
    expect(replay.status).toBe(401);
    expect(challenges(replay)).toMatchObject([{ stale: true }]);
    const fresh = challenges(replay)[0];
    if (!fresh) throw new Error('no challenge');
    expect((await w.sip.register(3600, { challenge: fresh })).status).toBe(200);
  });

  it('RFC 3261 section 21.5.4: refuses every other refresh 503 with Retry-After, and takes the retry', async () => {
    const w = await edgeWorld({ profile: 'carrier-sbc' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const { answer } = await w.sip.registerAuthenticated(3600);
      statuses.push(answer.status);
      if (answer.status === 503) expect(answer.headers.get('retry-after')).toEqual(['2']);
    }
    // The first REGISTER binds; refreshes 1 and 3 are taken, refresh 2 is refused.
    expect(statuses).toEqual([200, 200, 503, 200]);
    expect(await registered(w)).toBe(true);
  });
});

describe('the edge as the control API sets it', () => {
  it('refuses an unknown profile 400 invalid_input naming the field, and reset() puts back the one the simulator started with', async () => {
    const w = await world({ edgeProfile: 'no-crlf-pong' });
    const control = createSimulatorControl(w.sim.url);
    expect(await control.edge()).toMatchObject({ profile: 'no-crlf-pong', restartingUntil: null });
    await expect(control.setEdge({ profile: 'opensips' as 'kamailio' })).rejects.toMatchObject({ status: 400, code: 'invalid_input', message: expect.stringContaining('profile') });
    expect(await control.setEdge({ profile: 'asterisk', sessionExpiresSeconds: 4 })).toMatchObject({ profile: 'asterisk', sessionExpiresSeconds: 4 });
    await control.reset();
    expect((await control.edge()).profile).toBe('no-crlf-pong');
  });
});
