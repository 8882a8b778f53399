import { withinDeadline } from '../time/deadline.js';
import type { KeyBudget } from '../budget/key-budget.js';
import type { RateStore } from '../access/rate-store.js';
import { keyRefused } from '../upstream/relay.js';
import type { Upstream } from '../upstream/upstream.js';
import type { Clock } from '../time/clock.js';

/**
 * Whether the proxy can serve (`/readyz`): the voice service answers and takes the key, and the shared stores
 * (Redis), when configured, answer. The service is proven by any answer of the last 30 s; only when there was
 * none does a probe read go out (one request of the key's quota), at most every 10 s.
 */

/** Each check's verdict: `ok`, or why not. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
}

const RECENT_MS = 30_000;
const PROBE_EVERY_MS = 10_000;
const STORE_TIMEOUT_MS = 1000;
/** The probe: the current session of a subject no user has. */
const PROBE = { method: 'GET', path: '/browser-sessions', query: { externalSubject: 'voice-proxy-readiness' } } as const;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Resolves `ok` or why not, within {@link STORE_TIMEOUT_MS}. */
const answers = (ping: () => Promise<void>, clock: Clock): Promise<string> =>
  withinDeadline(
    ping().then(() => 'ok', message),
    STORE_TIMEOUT_MS,
    () => `no answer within ${STORE_TIMEOUT_MS} ms`,
    clock,
  );

export interface ReadinessParts {
  upstream: Upstream;
  budget: Pick<KeyBudget, 'ping'>;
  /** The per-user rate store, when it is shared (it has a `ping`). */
  rateStore?: RateStore;
  /** Whether the budget's store is a shared one worth checking. */
  sharedBudget: boolean;
  clock: Clock;
}

/** The readiness of one proxy; `heard(status)` is told of every answer of the service. */
export function createReadiness(parts: ReadinessParts) {
  const now = () => parts.clock.now();
  let lastAnswerAt = -Infinity;
  let probed: { at: number; verdict: Promise<string> } | undefined;

  const probe = async (): Promise<string> => {
    try {
      const response = await parts.upstream(PROBE);
      if (keyRefused(response)) return `the service refused the key (${response.status})`;
      return response.status < 500 ? 'ok' : `the service answered ${response.status}`;
    } catch (error) {
      return `no answer (${message(error)})`;
    }
  };

  return {
    /** The service answered (any status below 500 proves it is there). */
    heard(status: number): void {
      if (status > 0 && status < 500) lastAnswerAt = now();
    },
    async check(): Promise<Readiness> {
      const at = now();
      let service: Promise<string>;
      if (at - lastAnswerAt < RECENT_MS) service = Promise.resolve('ok');
      else {
        if (!probed || at - probed.at >= PROBE_EVERY_MS) probed = { at, verdict: probe() };
        service = probed.verdict;
      }
      const checks: Record<string, Promise<string>> = { service };
      if (parts.sharedBudget) checks.budgetStore = answers(() => parts.budget.ping(), parts.clock);
      const ping = parts.rateStore?.ping?.bind(parts.rateStore);
      if (ping) checks.rateStore = answers(ping, parts.clock);
      const verdicts = Object.fromEntries(await Promise.all(Object.entries(checks).map(async ([name, verdict]) => [name, await verdict] as const)));
      return { ready: Object.values(verdicts).every((verdict) => verdict === 'ok'), checks: verdicts };
    },
  };
}
