import { HttpError } from '../../contract/http-error.js';
import { createMemoryBudgetStore, type BudgetStore, type QuotaReading } from './budget-store.js';
import { systemClock } from '../time/clock.js';

/**
 * The key's quota as a budget (docs/operations.md, "The key's budget"): one key serves every user, and the
 * page reads each call in progress about once a second (spec 8), so the proxy keeps those reads: it learns the
 * quota from the service's `X-RateLimit-*` headers, holds a lease for each call in progress, and refuses a new
 * call the budget cannot carry before it reaches the service.
 *
 * @remarks
 * Priority, highest first: hangups and session ends (never refused here), reads of calls in progress (never
 * refused here), the current-session reads of recovery, then new sessions and new calls. A call's lease is
 * renewed by each read that shows it busy and given up by the read that shows it over; a call nobody reads
 * for {@link LEASE_MS} (its page closed) stops holding a place.
 */

/**
 * What one call in progress costs a minute: the page's read every second, and its share of the requests around
 * it (its session, the call itself, the ownership reads, a hangup, the session's end).
 */
export const CALL_COST_PER_MINUTE = 63;
/** How long a call keeps its place without a read. */
export const LEASE_MS = 15_000;
/** How long a new call waits for a place after a refusal that only a call's end can lift. */
const RETRY_AFTER_BUSY_S = 10;

/** How many calls at once `perMinute` requests a minute serve. */
export function callsServed(perMinute: number): number {
  return Math.floor(perMinute / CALL_COST_PER_MINUTE);
}

/** The budget's view at one moment: the newest reading and how many calls hold a place. */
export interface BudgetView {
  reading: QuotaReading | null;
  callsInProgress: number;
  now: number;
}

/** Seconds until the reading's window starts afresh, at least 1. */
const secondsToReset = (reading: QuotaReading, now: number) => Math.max(1, Math.ceil((reading.resetAt - now) / 1000));

/** The reads one call in progress makes before the reading's window starts afresh: one a second, a minute at most. */
const readsPerCallBeforeReset = (reading: QuotaReading, now: number) => Math.min(60, secondsToReset(reading, now));

/**
 * How many calls may be in progress at once now: what the key's minute quota serves, and no more than the
 * window's remaining requests can read until it resets. Null when nothing is known yet (no reading).
 */
export function callPlaces({ reading, now }: Omit<BudgetView, 'callsInProgress'>): number | null {
  if (!reading) return null;
  const byQuota = reading.perMinute === null ? Infinity : callsServed(reading.perMinute);
  if (reading.resetAt <= now) return byQuota;
  // The starting requests (the ownership read and the call itself) come out of the window first.
  const byRemaining = Math.floor(Math.max(0, reading.remaining - 2) / readsPerCallBeforeReset(reading, now));
  return Math.min(byQuota, byRemaining);
}

/** Words for a refused call: how many calls the key's quota serves, and how many are in progress. */
function callRefusal(view: BudgetView, places: number): HttpError {
  const { reading, callsInProgress, now } = view;
  const perMinute = reading?.perMinute;
  const served = perMinute ? callsServed(perMinute) : places;
  const quota = perMinute ? `The voice key's quota (${perMinute} requests a minute) serves ${served} call${served === 1 ? '' : 's'} at once` : `The voice key's quota serves ${served} more calls now`;
  const windowBound = reading !== null && places < served;
  const retryAfter = windowBound ? secondsToReset(reading, now) : RETRY_AFTER_BUSY_S;
  const why = windowBound ? `what is left of it until it resets in ${retryAfter} s is kept for the ${callsInProgress} in progress` : `${callsInProgress} ${callsInProgress === 1 ? 'is' : 'are'} in progress`;
  return new HttpError(429, 'concurrency_limit', `${quota}, and ${why}; try again when a call ends. Nothing was done.`, { 'Retry-After': String(retryAfter) });
}

/** A refusal of a lower-priority request that would eat into the reads kept for the calls in progress. */
function keptForCalls(view: BudgetView, what: string): HttpError | null {
  const { reading, callsInProgress, now } = view;
  if (!reading || reading.resetAt <= now || callsInProgress === 0) return null;
  if (reading.remaining - 1 >= callsInProgress * readsPerCallBeforeReset(reading, now)) return null;
  const retryAfter = String(secondsToReset(reading, now));
  return new HttpError(429, 'rate_limited', `${what} waits: the voice key's requests left until its quota resets in ${retryAfter} s are kept for the calls in progress`, { 'Retry-After': retryAfter });
}

/** The reading of the service's rate-limit headers on an answer, or null when it sent none. */
export function readQuota(status: number, headers: Readonly<Record<string, string>>, now: number, previous: QuotaReading | null): QuotaReading | null {
  const number = (name: string) => {
    const value = headers[name];
    return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  };
  const limit = number('x-ratelimit-limit');
  const remaining = number('x-ratelimit-remaining');
  const reset = number('x-ratelimit-reset');
  const retryAfter = number('retry-after');
  if (limit === undefined || remaining === undefined || reset === undefined) return null;
  // spec 8: Reset is seconds from now; a window of a minute or less is the minute's.
  const perMinute = reset <= 60 ? limit : (previous?.perMinute ?? null);
  const resetAt = now + 1000 * (status === 429 && retryAfter !== undefined ? Math.max(retryAfter, reset) : reset);
  return { limit, remaining: status === 429 ? 0 : remaining, resetAt, at: now, perMinute };
}

/** A call admitted and not yet named: its lease, held under its attempt until the service answers. */
export interface CallTicket {
  member: string;
}

/** Options of {@link createKeyBudget}. */
export interface KeyBudgetOptions {
  store?: BudgetStore;
  now?: () => number;
  log: (line: string) => void;
}

/** The key's budget; see the file comment. */
export interface KeyBudget {
  /** Learns from one of the service's answers. */
  observe(status: number, headers: Readonly<Record<string, string>>): void;
  /**
   * Admits a new call, holding its place under `attempt` (the call's idempotency key), or throws
   * `429 concurrency_limit`. A retry of an attempt that still holds its place (its answer was lost) is
   * admitted: it is the same call, never a new one.
   */
  admitCall(attempt: string): Promise<CallTicket>;
  /** The service answered the call's request: a created call keeps the place under its id, anything else frees it. */
  callAnswered(ticket: CallTicket, call: unknown): void;
  /** Admits a new session, or throws `429 rate_limited` when it would eat the reads kept for calls. */
  admitSession(): Promise<void>;
  /** Admits a current-session read, or throws `429 rate_limited` when it would eat the reads kept for calls. */
  admitRecoveryRead(): Promise<void>;
  /** A read showed `call`: busy keeps its place, over frees it. */
  callSeen(call: unknown): void;
  /** The budget now, for metrics. */
  snapshot(): Promise<BudgetView & { places: number | null }>;
  /** Whether the store answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A call's id and whether it is busy, from a record the service returned; null for anything else. */
function callOf(value: unknown): { id: string; busy: boolean } | null {
  const call = value as { id?: unknown; busy?: unknown; state?: unknown } | null | undefined;
  if (typeof call?.id !== 'string') return null;
  const busy = typeof call.busy === 'boolean' ? call.busy : call.state !== 'ended' && call.state !== 'failed';
  return { id: call.id, busy };
}

/** What the budget tells its log: each news once, until it changes. */
interface BudgetNews {
  /** A store failure: logged once until it answers again; what it means is decided by the caller. */
  storeFailed(error: unknown): void;
  storeAnswered(): void;
  /** An answer without the rate-limit headers, while no reading is known. */
  noHeaders(): void;
  /** The quota as read, when it is news. */
  quota(reading: QuotaReading): void;
}

function budgetNews(log: (line: string) => void): BudgetNews {
  let said: { perMinute: number | null } | undefined;
  let saidNoHeaders = false;
  let saidStoreDown = false;
  return {
    storeFailed(error) {
      if (!saidStoreDown) log(`voice proxy: the budget store failed (${error instanceof Error ? error.message : String(error)}); hangups and reads go on, new calls are refused until it answers`);
      saidStoreDown = true;
    },
    storeAnswered() {
      if (saidStoreDown) log('voice proxy: the budget store answers again');
      saidStoreDown = false;
    },
    noHeaders() {
      if (!saidNoHeaders) log('voice proxy: the voice service sent no X-RateLimit headers; the key budget is off, calls are admitted as the service allows');
      saidNoHeaders = true;
    },
    quota(reading) {
      if (said && said.perMinute === reading.perMinute) return;
      said = { perMinute: reading.perMinute };
      if (reading.perMinute === null) return;
      const served = callsServed(reading.perMinute);
      log(`voice proxy: the voice key's quota is ${reading.perMinute} requests a minute; it serves ${served} call${served === 1 ? '' : 's'} at once (each call is read about once a second)`);
    },
  };
}

/**
 * Holds a place for `member` if the budget has one, else throws the refusal; a store that fails refuses too,
 * since a new call is the one request the budget may hold back.
 */
async function holdPlace(store: BudgetStore, view: () => Promise<BudgetView>, news: BudgetNews, member: string): Promise<void> {
  let current: BudgetView;
  let places: number | null;
  let held: { held: boolean; count: number };
  try {
    current = await view();
    places = callPlaces(current);
    held = await store.hold(member, current.now + LEASE_MS, current.now, places ?? undefined);
  } catch (error) {
    news.storeFailed(error);
    throw new HttpError(429, 'concurrency_limit', 'The voice key budget cannot be read right now, so no new call is started; try again in a moment. Nothing was done.', { 'Retry-After': '5' });
  }
  news.storeAnswered();
  if (!held.held) throw callRefusal({ ...current, callsInProgress: held.count }, places ?? 0);
}

/** Creates the key's budget over `store` (one process's memory by default). */
export function createKeyBudget(options: KeyBudgetOptions): KeyBudget {
  const store = options.store ?? createMemoryBudgetStore();
  const now = options.now ?? systemClock.now;
  const news = budgetNews(options.log);
  let latest: QuotaReading | null = null;
  const quietly = (work: Promise<unknown>) => void work.then(news.storeAnswered, news.storeFailed);

  const view = async (): Promise<BudgetView> => {
    const at = now();
    const [reading, callsInProgress] = await Promise.all([store.reading(), store.count(at)]);
    return { reading: reading ?? latest, callsInProgress, now: at };
  };

  /** A lower-priority request: refused only when it would eat the reads kept for calls; a store that fails lets it go. */
  const admitBesideCalls = async (what: string): Promise<void> => {
    const refusal = await view().then((current) => keptForCalls(current, what), () => null);
    if (refusal) throw refusal;
  };

  return {
    observe(status, headers) {
      const reading = readQuota(status, headers, now(), latest);
      if (!reading) {
        if (!latest) news.noHeaders();
        return;
      }
      latest = reading;
      news.quota(reading);
      quietly(store.observe(reading));
    },
    async admitCall(attempt) {
      const ticket = { member: `attempt:${attempt}` };
      await holdPlace(store, view, news, ticket.member);
      return ticket;
    },
    callAnswered(ticket, call) {
      const named = callOf(call);
      quietly(store.release(ticket.member));
      if (named?.busy) quietly(store.hold(named.id, now() + LEASE_MS, now()));
    },
    admitSession: () => admitBesideCalls('A new session'),
    admitRecoveryRead: () => admitBesideCalls('This read'),
    callSeen(value) {
      const call = callOf(value);
      if (!call) return;
      quietly(call.busy ? store.hold(call.id, now() + LEASE_MS, now()) : store.release(call.id));
    },
    async snapshot() {
      const current = await view();
      return { ...current, places: callPlaces(current) };
    },
    ping: () => store.ping(),
    close: async () => store.close?.(),
  };
}

/** A budget that admits everything and keeps nothing: `budget: false`. */
export function noBudget(now: () => number = systemClock.now): KeyBudget {
  return {
    observe() {},
    admitCall: async (attempt) => ({ member: attempt }),
    callAnswered() {},
    admitSession: async () => {},
    admitRecoveryRead: async () => {},
    callSeen() {},
    snapshot: async () => ({ reading: null, callsInProgress: 0, now: now(), places: null }),
    ping: async () => {},
    close: async () => {},
  };
}
