// @vitest-environment happy-dom
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Connection } from '../../../../../lib/core/types.js';
import type { EdgeAnswer } from '../../../../support/fake-sip-edge.js';
import { FakeSipSockets } from '../../../../support/fake-sip-socket.js';
import { sipLinkWorld, wait } from '../../../../support/sip-link-world.js';

/**
 * Property run: the real link against a random edge (test/support/fake-sip-edge.ts), on fake timers. The edge
 * answers keep-alive pings or not, confirms outbound or not, challenges or not, asks for a longer binding (423),
 * restarts for a few seconds, answers refreshes 503 with Retry-After, 500, 408 or not at all, calls its nonces
 * stale, and the socket drops or stalls; the browser goes offline and online. It never refuses the credentials
 * (the session stays valid throughout), so after every step of time:
 * - the page shows `ready` only with a binding the registrar holds (the registration never lapses unseen);
 * - it never shows `expired` or stops: once the edge is sound again it is `ready` within the longest back-off;
 * - it shows `offline` only while the browser says it is offline;
 * - nothing thrown reaches the page.
 * `PROPERTY_RUNS` sets how many edges run (default 25).
 */

type Step =
  | { kind: 'advance'; ms: number }
  | { kind: 'drop' }
  | { kind: 'stall' }
  | { kind: 'restart'; ms: number }
  | { kind: 'answer'; answer: EdgeAnswer }
  | { kind: 'stale' }
  | { kind: 'online'; online: boolean };

const STEP: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1000, max: 200_000 }) }) },
  fc.record({ kind: fc.constant('drop' as const) }),
  fc.record({ kind: fc.constant('stall' as const) }),
  fc.record({ kind: fc.constant('restart' as const), ms: fc.integer({ min: 1000, max: 30_000 }) }),
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      answer: fc.oneof(
        fc.constantFrom<EdgeAnswer>(500, 408, 'silence', 503),
        fc.integer({ min: 1, max: 120 }).map((seconds): EdgeAnswer => ({ status: 503, headers: [`Retry-After: ${seconds}`] })),
      ),
    }),
  },
  fc.record({ kind: fc.constant('stale' as const) }),
  fc.record({ kind: fc.constant('online' as const), online: fc.boolean() }),
);

const EDGE = fc.record({
  outbound: fc.boolean(),
  pongs: fc.boolean(),
  challenges: fc.constantFrom<string[]>([], ['MD5'], ['MD5', 'SHA-256'], ['SHA-256', 'MD5']),
  minExpires: fc.constantFrom(0, 3600),
});

/** The longest wait between two attempts, with a registrar's unanswered REGISTER (Timer F) on top. */
const RECOVERY_MS = 30_000 + 32_000 + 5000;
/** How often the invariants are checked while time passes. */
const TICK_MS = 5000;

describe('the link against a random edge', () => {
  const world = sipLinkWorld();

  it('keeps its registration, keeps trying, and says offline only when the browser does', async () => {
    const thrown: unknown[] = [];
    const record = (error: unknown) => void thrown.push(error);
    process.on('unhandledRejection', record);
    window.addEventListener('error', record);
    let onLine = true;
    vi.spyOn(navigator, 'onLine', 'get').mockImplementation(() => onLine);
    try {
      await fc.assert(
        fc.asyncProperty(EDGE, fc.array(STEP, { maxLength: 12 }), async (shape, steps) => {
          onLine = true;
          const sockets = new FakeSipSockets();
          Object.assign(sockets.edge, { ...shape, pongs: shape.pongs || shape.outbound });
          vi.stubGlobal('WebSocket', sockets.WebSocket);
          const { voice } = world.phone();
          const connecting = voice.connect();
          await wait(0);
          await connecting;
          const edge = sockets.edge;
          const check = (where: string) => {
            const connection: Connection = voice.status().connection;
            if (connection === 'ready') expect(edge.boundUntil, `${where}: ready with a binding`).toBeGreaterThanOrEqual(Date.now());
            expect(['ready', 'reconnecting', 'offline'], where).toContain(connection);
            if (connection === 'offline') expect(onLine, `${where}: offline`).toBe(false);
            expect(thrown, where).toEqual([]);
          };
          const pass = async (ms: number, where: string) => {
            for (let left = ms; left > 0; left -= TICK_MS) {
              await wait(Math.min(TICK_MS, left));
              check(where);
            }
          };
          for (const [index, step] of steps.entries()) {
            const where = `step ${index} ${JSON.stringify(step)}`;
            if (step.kind === 'advance') await pass(step.ms, where);
            else if (step.kind === 'drop') sockets.last.drop();
            else if (step.kind === 'stall') sockets.last.stall();
            else if (step.kind === 'answer') edge.answers.push(step.answer);
            else if (step.kind === 'stale') (edge.staleNonces(), (edge.staleNext = true));
            else if (step.kind === 'online') {
              onLine = step.online;
              window.dispatchEvent(new Event(step.online ? 'online' : 'offline'));
            } else {
              edge.down = true;
              for (const socket of sockets.opened) socket.drop();
              await pass(step.ms, where);
              edge.down = false;
            }
            await wait(0);
            check(where);
          }
          // The edge is sound again: the link, still trying, registers within the longest back-off.
          edge.answers.length = 0;
          onLine = true;
          window.dispatchEvent(new Event('online'));
          await pass(RECOVERY_MS, 'recovery');
          expect(voice.status().connection).toBe('ready');
          await voice.disconnect();
        }),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 25) },
      );
    } finally {
      process.off('unhandledRejection', record);
      window.removeEventListener('error', record);
    }
  });
});
