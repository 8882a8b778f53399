import { describe, expect, it } from 'vitest';
import { sleep, waitFor } from '../support/sim-api.js';
import { ringingCall, useSipWorlds } from '../support/sip-world.js';

/**
 * The `stall-sip-socket` fault (docs/simulator.md): the page's SIP WebSocket stays
 * open but the simulator takes nothing in and sends nothing out, as a network path that dies without closing.
 * Only a page that notices (a keep-alive unanswered) and opens a new socket is served again.
 */

const { registeredWorld, sipClient, received } = useSipWorlds();

/** Sends a double-CRLF keep-alive ping (RFC 5626 section 3.5.1) on the client's socket; answers what it received since. */
async function ping(client: Awaited<ReturnType<typeof sipClient>>): Promise<() => string[]> {
  const before = received.length;
  await client.ua.transport.send('\r\n\r\n');
  return () => received.slice(before);
}

/** Resolves once a ping on the client's socket is answered with its CRLF pong, however long a busy machine takes. */
async function pingAnswered(client: Awaited<ReturnType<typeof sipClient>>): Promise<void> {
  const since = await ping(client);
  await waitFor(() => (since().includes('\r\n') ? true : undefined), 'the pong of a ping');
}

/** Whether a ping on the client's socket is answered within a beat: a stalled one answers nothing, however long one waits. */
async function pingAnsweredSoon(client: Awaited<ReturnType<typeof sipClient>>): Promise<boolean> {
  const since = await ping(client);
  await sleep(500);
  return since().includes('\r\n');
}

describe('stall-sip-socket', () => {
  it('leaves the socket open but answers nothing on it, keep-alive included; a new socket is served and rung', async () => {
    const w = await registeredWorld();
    await pingAnswered(w.client);

    // Armed on a read; the read itself is served, then the socket stalls.
    const armed = await fetch(`${w.sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/api/v1/voice/browser-sessions/:id', fault: 'stall-sip-socket', sessionId: w.session.id }),
    });
    expect(armed.status).toBe(201);
    expect((await w.api.request('GET', `/browser-sessions/${w.session.id}`)).status).toBe(200);

    expect(await pingAnsweredSoon(w.client)).toBe(false);
    expect(w.client.ua.transport.isConnected()).toBe(true);

    // Not even the closing handshake is answered, as on a path that died: the close stays pending.
    const closing = w.client.ua.transport.disconnect();
    await sleep(500);
    expect(w.client.ua.transport.state).toBe('Disconnecting');
    // The page's way out: it gives up on the stalled socket without waiting for its close (the library takes
    // it as closed after a second; here its socket is dropped) and opens a new one, registered again, to
    // which the service now sends its INVITEs.
    (w.client.ua.transport as unknown as { _ws?: { terminate(): void } })._ws?.terminate();
    await closing;
    const fresh = await sipClient(w.transport);
    expect((await fresh.register(fresh.registerer(w.transport.registrationExpiresSeconds))).statusCode).toBe(200);
    await pingAnswered(fresh);
    const { invitation } = await ringingCall({ ...w, client: fresh });
    expect(invitation.request.getHeader('X-Browser-Call-Id')).toMatch(/^bc_/);
  });
});
