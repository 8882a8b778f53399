/**
 * `@voice-browser/server`: the server piece of voice-browser. It holds the voice service's API key, lets only
 * your logged-in user through, and forwards the page's browser operations (sessions and calls) to the
 * service, each for that user's own session and calls; with `queues`, it also receives the queue webhook and
 * serves the support desk (waiting callers as Server-Sent Events, dequeue); a supervisor listens in on the calls
 * of their agents, and calls are recorded and their recordings downloaded. One web-standard handler,
 * `(Request) => Response`, to mount under any path in Express, Hono, Next.js or `node:http`.
 *
 * @packageDocumentation
 * @module @voice-browser/server
 */

export { createVoiceProxy } from './setup/proxy.js';
export type { ProxyLogger, ProxyUser, QueueOptions, Readiness, SupervisorRole, VoiceProxy, VoiceProxyOptions } from './setup/proxy.js';
export type { Clock } from './time/clock.js';
export { VoiceProxySetupError } from './setup/proxy-setup.js';
export type { VoiceProxySetupCode } from './setup/proxy-setup.js';
export type { UserRateLimitOptions } from './access/user-rate-limit.js';
export { createMemoryRateStore } from './access/rate-store.js';
export type { RateStore, RateWindow } from './access/rate-store.js';
export { createRedisRateStore } from './redis/redis-rate-store.js';
export type { RedisRateStoreOptions } from './redis/redis-rate-store.js';
export { createMemoryBudgetStore } from './budget/budget-store.js';
export type { BudgetStore, QuotaReading } from './budget/budget-store.js';
export { createRedisBudgetStore } from './redis/redis-budget-store.js';
export type { RedisBudgetStoreOptions } from './redis/redis-budget-store.js';
export { createOpsHandler } from './ops/ops-handler.js';
export type { OpsHandlerOptions } from './ops/ops-handler.js';
export { createMemoryQueueEvents } from './desk/queue-events.js';
export type { MemoryQueueEventsOptions, QueueEventBus, QueueUpdate, QueueUpdateName, Unsubscribe, WaitingCaller } from './desk/queue-events.js';
export { createRedisQueueEvents } from './redis/redis-queue-events.js';
export type { RedisQueueEventsOptions } from './redis/redis-queue-events.js';
export { createMemoryAvailability } from './desk/availability.js';
export type { Availability, AvailabilityRecord, AvailabilityStore } from './desk/availability.js';
export { createRedisAvailability } from './redis/redis-availability.js';
export type { RedisAvailabilityOptions } from './redis/redis-availability.js';
export type { OfferOptions } from './routes/queue-routes.js';
