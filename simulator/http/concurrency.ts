import { HttpError } from '../../contract/http-error.js';
import type { Account } from '../service/accounts.js';
import type { BrowserCall } from '../service/model.js';

/**
 * The per-account ceiling on active browser calls (spec 8, "Voice concurrency": `429 concurrency_limit`).
 *
 * @remarks
 * Counts the calls this ceiling admitted that the service still reports busy, plus admissions still under
 * way, so two simultaneous requests cannot both take the last place. A call stops counting when it turns
 * terminal (`busy: false`, spec 3.2) or the service forgets it (simulator reset).
 *
 * @example
 * ```ts
 * const ceiling = new CallCeiling((id) => service.inspectCall(id)?.call.busy === true);
 * const call = await ceiling.admit(account, () => service.createCall(owner, input));
 * ```
 */
export class CallCeiling {
  private readonly calls = new Map<string, Set<string>>();
  private readonly admitting = new Map<string, number>();

  /** @param isActive - whether the service still runs the call with this id. */
  constructor(private readonly isActive: (callId: string) => boolean) {}

  /** Runs `create` if the account is below its ceiling, and counts the call it returns while it runs. */
  async admit(account: Readonly<Account>, create: () => Promise<BrowserCall>): Promise<BrowserCall> {
    const admitting = this.admitting.get(account.id) ?? 0;
    if (this.activeCount(account.id) + admitting >= account.maxActiveCalls) {
      throw new HttpError(429, 'concurrency_limit', `the account has ${account.maxActiveCalls} active calls, its ceiling; wait for one to end`);
    }
    this.admitting.set(account.id, admitting + 1);
    try {
      const call = await create();
      if (call.busy) this.idsOf(account.id).add(call.id);
      return call;
    } finally {
      const left = (this.admitting.get(account.id) ?? 1) - 1;
      if (left > 0) this.admitting.set(account.id, left);
      else this.admitting.delete(account.id);
    }
  }

  /** The account's calls that are still active; forgets the others. */
  activeCount(accountId: string): number {
    const ids = this.calls.get(accountId);
    if (!ids) return 0;
    for (const id of ids) if (!this.isActive(id)) ids.delete(id);
    if (ids.size === 0) this.calls.delete(accountId);
    return ids.size;
  }

  private idsOf(accountId: string): Set<string> {
    let ids = this.calls.get(accountId);
    if (!ids) this.calls.set(accountId, (ids = new Set()));
    return ids;
  }
}
