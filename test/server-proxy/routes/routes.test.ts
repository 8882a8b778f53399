import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBudgetStore, type BudgetStore } from '../../../server-proxy/budget/budget-store.js';
import { ROUTES, routeOf, routeTemplate } from '../../../server-proxy/routes/routes.js';
import { createHarness, type Harness } from '../support/harness.js';
import { recordingBus, SECRET } from '../support/queue-support.js';

/**
 * The route table held to what the routes do: each is named by its own path, the key's
 * budget refuses exactly those its class says it may, and a route about one resource answers an unknown id as
 * unknown.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A budget store whose key has one request left this minute, with a call in progress that needs it. */
function starvedStore(): BudgetStore {
  const store = createMemoryBudgetStore();
  return {
    ...store,
    observe: async () => {},
    reading: async () => ({ limit: 100, remaining: 1, resetAt: Date.now() + 60_000, at: Date.now(), perMinute: 100 }),
    count: async () => 1,
    hold: async () => ({ held: false, count: 1 }),
  };
}

/** A request to `route` that passes every check the route makes before the budget: a body of its shape, a key. */
function sample(route: (typeof ROUTES)[number]): Request {
  const body = route.path === '/browser-calls' ? { sessionId: 'bs_1', from: '+12025550100', to: '+12025550101' } : {};
  return new Request(`http://app.test/voice${route.path.replace(/:id/g, 'x_1')}`, {
    method: route.method,
    headers: { 'x-test-user': 'alice', 'idempotency-key': 'press-1', 'content-type': 'application/json' },
    ...(route.method === 'GET' ? {} : { body: JSON.stringify(body) }),
  });
}

describe('the route table', () => {
  it('names every route by its own path, and no two routes alike', () => {
    for (const route of ROUTES) {
      const path = route.path.replace(/:id/g, 'x_1');
      expect(routeOf(path, route.method)).toBe(route);
      expect(routeTemplate(path)).toBe(route.path);
    }
    expect(new Set(ROUTES.map((route) => `${route.method} ${route.path}`)).size).toBe(ROUTES.length);
  });

  it('has the key budget refuse the new and recovery routes, and no other, when the reads left are kept for a call; an id of nobody’s is unknown', async () => {
    h = createHarness({ rateLimit: false, budget: { store: starvedStore() }, queues: { notifySecret: SECRET, queuesFor: () => [], events: recordingBus() } });
    for (const route of ROUTES) {
      const answer = await h.proxy(sample(route));
      // An answer is not read: an event stream that opened would never end.
      await answer.body?.cancel();
      expect({ route: `${route.method} ${route.path}`, refused: answer.status === 429 }).toEqual({ route: `${route.method} ${route.path}`, refused: route.budget === 'new' || route.budget === 'recovery' });
      // A route about one resource proves it the user's first (its owner rule): an id of nobody's is unknown.
      if (route.path.includes(':id') && route.budget !== 'new' && route.budget !== 'recovery') expect({ route: route.path, status: answer.status }).toEqual({ route: route.path, status: 404 });
    }
  });

  it('answers an id of nobody’s as unknown on every route about one resource, those the budget may refuse included', async () => {
    h = createHarness({ rateLimit: false, queues: { notifySecret: SECRET, queuesFor: () => [], events: recordingBus() } });
    for (const route of ROUTES.filter((each) => each.path.includes(':id'))) {
      const answer = await h.proxy(sample(route));
      expect({ route: `${route.method} ${route.path}`, status: answer.status }).toEqual({ route: `${route.method} ${route.path}`, status: 404 });
    }
  });
});
