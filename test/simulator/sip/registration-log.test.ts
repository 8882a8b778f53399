import { describe, expect, it } from 'vitest';
import { RegistrationLog } from '../../../simulator/sip/registration-log.js';

/** The simulator's record of each session's registration, read by `/__sim`. */
describe('the registration log', () => {
  const socket = {};

  it('counts a registration refreshed before it ran out as one stretch: never unregistered', () => {
    const log = new RegistrationLog();
    log.bound('bs_1', socket, 0, 600_000);
    log.bound('bs_1', socket, 300_000, 900_000);
    log.bound('bs_1', socket, 600_000, 1_200_000);
    expect(log.record('bs_1', 1_000_000)).toEqual({ registered: true, firstRegisteredAt: new Date(0).toISOString(), unregisteredMs: 0, registrations: 3, sockets: 1 });
  });

  it('counts the time a registration had run out, or was dropped with its socket, until the next binding', () => {
    const log = new RegistrationLog();
    log.bound('bs_1', socket, 0, 60_000);
    log.bound('bs_1', socket, 90_000, 150_000);
    log.dropped('bs_1', 100_000);
    log.bound('bs_1', {}, 160_000, 760_000);
    expect(log.record('bs_1', 200_000)).toMatchObject({ registered: true, unregisteredMs: 30_000 + 60_000, registrations: 3, sockets: 2 });
    expect(log.record('bs_1', 800_000)).toMatchObject({ registered: false, unregisteredMs: 90_000 + 40_000 });
  });

  it('says a session that never registered was never registered, and forgets on clear', () => {
    const log = new RegistrationLog();
    expect(log.record('bs_1', 5)).toEqual({ registered: false, firstRegisteredAt: null, unregisteredMs: 0, registrations: 0, sockets: 0 });
    log.bound('bs_1', socket, 0, 60_000);
    log.clear();
    expect(log.record('bs_1', 5).registrations).toBe(0);
  });
});
