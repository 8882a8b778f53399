import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { KeyBudget } from '../budget/key-budget.js';

/**
 * The proxy's metrics in the Prometheus text format, by prom-client, on a registry of the proxy's own (two
 * proxies in one process never mix their figures): what went to the service and how long it took, the
 * service's 429s and the proxy's own refusals, the calls in progress and what is left of the key's budget.
 */

/** What the proxy records as it works. */
export interface ProxyMetrics {
  /** One exchange with the service: its route template, method, status (0: no answer) and seconds. */
  upstream(route: string, method: string, status: number, seconds: number): void;
  /** A request the proxy answered `429` itself, by its code (`concurrency_limit`, `rate_limited`). */
  refused(code: string): void;
  /** The registry, for `/metrics`. */
  registry: Registry;
}

/** Upstream latency buckets in seconds: a loopback service answers in milliseconds, a slow one in seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type BudgetSnapshot = Awaited<ReturnType<KeyBudget['snapshot']>>;

/**
 * The budget's gauges on `registry`, each read from the budget when scraped, so they are as fresh as the scrape:
 * once for all four, which prom-client collects together (with Redis, each read is two round trips).
 */
function registerBudgetGauges(registry: Registry, budget: Pick<KeyBudget, 'snapshot'>): void {
  let scraping: Promise<BudgetSnapshot | null> | undefined;
  const snapshotOnce = () =>
    (scraping ??= budget
      .snapshot()
      .catch(() => null)
      .finally(() => (scraping = undefined)));
  const budgetGauge = (name: string, help: string, read: (snapshot: BudgetSnapshot) => number | null) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        // Not known yet (no answer of the service), or a store that does not answer: NaN, never a false 0.
        const snapshot = await snapshotOnce();
        const value = snapshot ? read(snapshot) : null;
        this.set(value ?? Number.NaN);
      },
    });
  budgetGauge('voice_proxy_calls_in_progress', 'Calls holding a place in the key budget (read busy within the last 15 s)', (s) => s.callsInProgress);
  budgetGauge('voice_proxy_call_places', 'Calls the key budget lets be in progress at once now', (s) => s.places);
  budgetGauge('voice_proxy_quota_remaining', "Requests left in the key's current quota window, as the service last said", (s) => s.reading?.remaining ?? null);
  budgetGauge('voice_proxy_quota_per_minute', "The key's quota a minute, as the service said", (s) => s.reading?.perMinute ?? null);
}

/** Creates the metrics of one proxy, reading the budget's figures when scraped. */
export function createProxyMetrics(budget: Pick<KeyBudget, 'snapshot'>): ProxyMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'voice_proxy_' });
  const requests = new Counter({
    name: 'voice_proxy_upstream_requests_total',
    help: 'Requests the proxy sent to the voice service, by route, method and status (0: no answer came)',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'voice_proxy_upstream_request_duration_seconds',
    help: 'Time from sending a request to the voice service to having its whole answer',
    labelNames: ['route', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const serviceLimited = new Counter({
    name: 'voice_proxy_service_rate_limited_total',
    help: "The voice service's 429 answers, by route: the key's quota was spent",
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'voice_proxy_refusals_total',
    help: 'Requests the proxy answered 429 itself, before the service, by code',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  registerBudgetGauges(registry, budget);

  return {
    upstream(route, method, status, seconds) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, seconds);
      if (status === 429) serviceLimited.inc({ route });
    },
    refused(code) {
      refusals.inc({ code });
    },
    registry,
  };
}
