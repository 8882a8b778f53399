/**
 * Issue 3, concurrency: 50 registered browser sessions and 10 simultaneous calls with audio both ways, on this
 * 2-core machine, without dropped signalling. Every page is SIP.js in Node over its own WebSocket; the ten
 * callers answer with werift (DTLS-SRTP on loopback) and send PCMU. Nothing here is timed: the README's
 * figures come from the same load (support/load.ts) run once and measured.
 */
import { describe, expect, it } from 'vitest';
import { runLoad } from '../support/load.js';
import { useSipWorlds } from '../support/sip-world.js';

const SESSIONS = 50;
const CALLS = 10;

const { world, sipClient } = useSipWorlds();

describe('50 registered sessions and 10 simultaneous calls with media', () => {
  it('registers every agent, answers and connects every call with RTP both ways, and ends each with busy false', async () => {
    // 100 POSTs to set up and a poll per call: beyond the default quota of 100 a minute (spec 8), which is not under test.
    const w = await world({ toneMs: 200, quota: { perMinute: 100_000, perHour: 1_000_000 } });
    const result = await runLoad(w.api, {
      sessions: SESSIONS,
      calls: CALLS,
      staggerMs: 100,
      packetsEachWay: 50,
      openClient: (transport) => sipClient(transport, { media: 'werift' }),
    });

    expect(result.registerStatuses).toEqual(Array(SESSIONS).fill(200));
    expect(result.createStatuses).toEqual(Array(CALLS).fill(202));
    expect(result.calls).toHaveLength(CALLS);
    for (const { call, facts, media, pageReceived, pageSent } of result.calls) {
      // The INVITE was answered 200 by the page, and the call went all the way through connected.
      expect(facts.browserFinalStatus).toBe(200);
      expect(facts.mediaConnectedAt).not.toBeNull();
      expect(facts.history.map((entry) => entry.state)).toEqual(['waiting_agent', 'dialing_recipient', 'connected', 'ending', 'ended']);
      expect(call).toMatchObject({ state: 'ended', endReason: 'api_hangup', busy: false });
      // RTP both ways, counted at both ends.
      expect(media?.packetsFromBrowser).toBeGreaterThanOrEqual(50);
      expect(media?.packetsToBrowser).toBeGreaterThanOrEqual(50);
      expect(pageReceived).toBeGreaterThanOrEqual(50);
      expect(pageSent).toBeGreaterThanOrEqual(media?.packetsFromBrowser ?? Infinity);
    }
    // Simultaneous: every call was connected before the first one began to end.
    const at = (history: Array<{ state: string; at: string }>, state: string) => Date.parse(history.find((entry) => entry.state === state)?.at ?? '');
    const lastConnected = Math.max(...result.calls.map(({ facts }) => at(facts.history, 'connected')));
    const firstEnding = Math.min(...result.calls.map(({ facts }) => at(facts.history, 'ending')));
    expect(lastConnected).toBeLessThanOrEqual(firstEnding);
    // No registration was dropped along the way: all fifty still take calls.
    expect(result.sessions.filter((session) => w.sim.service.sip.registration(session.id) === undefined)).toEqual([]);
    // Real work (every socket, DTLS handshake and media stream in JavaScript): sized for a loaded machine.
  }, 240_000);
});
