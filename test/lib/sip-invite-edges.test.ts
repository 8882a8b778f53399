// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { bodyOf, header, rawSipWorld, wait } from '../support/raw-sip.js';

describe('an INVITE from an edge we did not write', () => {
  const world = rawSipWorld();

  it('is answered 100, 180, then 200 with the answer, and the ACK confirms it', async () => {
    const link = await world.open();
    const edge = world.dialog();
    edge.invite();
    await wait(0);
    expect(world.offered()).toEqual([1]);
    await link.answer(1);
    expect(edge.answers).toEqual(['100 1 INVITE', '180 1 INVITE', '200 1 INVITE']);
    expect(bodyOf(edge.response(200) ?? '')).toMatch(/^v=0/);
    expect(header(edge.response(200), 'Supported')).toBeDefined();
    edge.ack();
    await wait(1000);
  });
});
