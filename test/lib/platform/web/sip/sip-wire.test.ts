// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { sipLinkWorld, wait } from '../../../../support/sip-link-world.js';

/**
 * What the link over SIP.js's core (sip-adapter.ts, sip-registration.ts, sip-socket.ts) puts on the wire, read
 * from the fake registrar's socket: the REGISTER the API layer's Registerer used to build, its refresh and its
 * end, and the keep-alive's pings on the same socket.
 */

const header = (message: string | undefined, name: string) => message?.match(new RegExp(`^${name}:\\s*(.*)$`, 'im'))?.[1]?.trim();

describe('the link on the wire', () => {
  const world = sipLinkWorld();

  it('registers one agent across its sockets (RFC 5626: reg-id 1, +sip.instance), for the session\'s time, refreshed at half of it', async () => {
    await world.ready();
    const socket = world.sockets.last;
    const [first] = socket.sent.filter((message) => message.startsWith('REGISTER '));
    expect(header(first, 'Contact')).toMatch(/^<sip:\w+@\w+\.invalid;transport=ws>;reg-id=1;\+sip\.instance="<urn:uuid:[0-9a-f-]{36}>";expires=600$/);
    expect(header(first, 'Supported')).toContain('outbound');
    expect(header(first, 'CSeq')).toMatch(/^\d+ REGISTER$/);

    await wait(299_000);
    expect(socket.registers).toHaveLength(1);
    await wait(1000);
    expect(socket.registers).toHaveLength(2);
    // The refresh is the same registration: one Call-ID, the next CSeq, the same instance.
    const [, refresh] = socket.sent.filter((message) => message.startsWith('REGISTER '));
    expect(header(refresh, 'Call-ID')).toBe(header(first, 'Call-ID'));
    expect(Number.parseInt(header(refresh, 'CSeq') ?? '')).toBe(Number.parseInt(header(first, 'CSeq') ?? '') + 1);
    expect(header(refresh, 'Contact')).toBe(header(first, 'Contact'));
  });

  it('pings with a double CRLF on its socket, and removes its binding (expires=0) as it disconnects', async () => {
    const { voice } = await world.ready();
    const socket = world.sockets.last;
    await wait(5000);
    expect(socket.sent).toContain('\r\n\r\n');
    await voice.disconnect();
    const last = socket.sent.filter((message) => message.startsWith('REGISTER ')).at(-1);
    expect(header(last, 'Contact')).toMatch(/;expires=0$/);
    expect(socket.readyState).toBe(3);
  });
});
