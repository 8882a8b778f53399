// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { FIRST_OPEN_TRIES } from '../../../../../lib/platform/web/sip/sip-socket.js';
import { sipLinkWorld, wait } from '../../../../support/sip-link-world.js';

/**
 * connect()'s first SIP WebSocket: a handshake that stalls or fails is tried afresh a second later, as a drop after
 * the registration is, and only a socket that never opens in all the tries fails the connect.
 */

describe("connect()'s first socket", () => {
  const world = sipLinkWorld();

  it('is tried afresh after a handshake that never ends and one that fails, and the third registers', async () => {
    world.sockets.next('silent', 'refuse', 'serve');
    const { voice, states } = world.phone();
    const connecting = voice.connect();
    await wait(60_000);
    await connecting;

    expect(voice.status().connection).toBe('ready');
    expect(states.map(([, state]) => state)).toEqual(['connecting', 'ready']);
    const [silent, refused, served] = world.sockets.opened;
    expect(world.sockets.opened).toHaveLength(3);
    // The stalled handshake was let go, not left to open later beside the one that registered.
    expect(silent!.readyState).toBeGreaterThanOrEqual(WebSocket.CLOSING);
    expect(refused!.registers).toEqual([]);
    expect(served!.registers).toHaveLength(1);
    expect(served!.madeAt - refused!.madeAt).toBeGreaterThanOrEqual(1000);
  });

  it('fails connection_failed once every try failed, tries no more, and a later connect() starts afresh', async () => {
    world.sockets.next(...Array.from({ length: FIRST_OPEN_TRIES }, () => 'refuse' as const));
    const { voice } = world.phone();
    const failed = voice.connect().catch((error: unknown) => error);
    await wait(60_000);

    expect(await failed).toMatchObject({ code: 'connection_failed' });
    expect(world.sockets.opened).toHaveLength(FIRST_OPEN_TRIES);
    expect(voice.status().connection).not.toBe('ready');
    const again = voice.connect();
    await wait(0);
    await again;
    expect(voice.status().connection).toBe('ready');
    expect(world.sockets.opened).toHaveLength(FIRST_OPEN_TRIES + 1);
  });
});
